"""Closed word lists the offline rules recognise a fact by: breeds, health conditions, hobbies,
what one plays, what one gives up. A rule that takes a value only from a list never invents one;
what is not listed is missed, and stays searchable in the message itself."""

from __future__ import annotations

DOG_BREEDS = (
    "labrador retriever|labrador|lab|golden retriever|retriever|beagle|poodle|toy poodle|husky|siberian husky|"
    "corgi|dachshund|terrier|jack russell terrier|jack russell|yorkshire terrier|yorkie|bull terrier|"
    "german shepherd|australian shepherd|shepherd|bulldog|french bulldog|english bulldog|spaniel|cocker spaniel|"
    "springer spaniel|collie|border collie|greyhound|whippet|pug|chihuahua|boxer|rottweiler|schnauzer|shiba inu|"
    "doberman|great dane|dalmatian|labradoodle|goldendoodle|cockapoo|pomeranian|maltese|shih tzu|akita|"
    "samoyed|malamute|mastiff|vizsla|weimaraner|pit bull|pitbull|bichon frise|sheepdog|bernese mountain dog|"
    "basset hound|bloodhound|newfoundland|cavalier king charles spaniel|cavapoo|staffie|staffordshire terrier"
).split("|")
CAT_BREEDS = (
    "siamese|persian|maine coon|ragdoll|bengal|sphynx|british shorthair|abyssinian|burmese|russian blue|"
    "scottish fold|norwegian forest cat|birman|devon rex|cornish rex|savannah|himalayan|exotic shorthair"
).split("|")

# Conditions a person says they have ("I have asthma", "I was diagnosed with ADHD"); a cold or a
# headache passes and is not listed.
HEALTH_CONDITIONS = (
    "type 1 diabetes|type 2 diabetes|diabetes|asthma|migraines|migraine|adhd|add|autism|epilepsy|"
    "high blood pressure|hypertension|high cholesterol|celiac disease|coeliac disease|anxiety|depression|"
    "arthritis|rheumatoid arthritis|ibs|crohn's disease|crohn's|pcos|endometriosis|multiple sclerosis|ms|"
    "lupus|insomnia|sleep apnea|eczema|psoriasis|tinnitus|fibromyalgia|scoliosis|dyslexia|ocd|ptsd|"
    "bipolar disorder|long covid|hypothyroidism|chronic fatigue syndrome|a heart condition|cancer|"
    "breast cancer|glaucoma|gout|osteoporosis|sciatica|vertigo"
).split("|")
# Adjectives naming the condition they imply: "I'm diabetic".
CONDITION_ADJECTIVES = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy",
                        "autistic": "autism", "dyslexic": "dyslexia", "anemic": "anemia", "anaemic": "anaemia"}

# What one plays as a pastime: instruments, sports, games.
PLAYED = (
    "guitar|bass|piano|violin|cello|drums|ukulele|saxophone|sax|flute|trumpet|clarinet|harp|keyboard|banjo|"
    "mandolin|harmonica|tennis|golf|chess|football|soccer|basketball|baseball|volleyball|badminton|squash|"
    "cricket|rugby|hockey|ice hockey|table tennis|ping pong|padel|pickleball|poker|bridge|board games|"
    "video games|dungeons and dragons|d&d|softball|water polo|frisbee|ultimate frisbee|darts|pool|snooker|"
    "bowling|netball|lacrosse|handball"
).split("|")
# Pastimes by name, most of them as a gerund ("I started knitting", "I go climbing").
HOBBIES = (
    "knitting|running|jogging|cycling|biking|mountain biking|swimming|painting|drawing|sketching|climbing|"
    "rock climbing|bouldering|hiking|baking|cooking|gardening|journaling|meditating|meditation|surfing|skiing|"
    "snowboarding|dancing|salsa dancing|singing|writing|creative writing|fishing|fly fishing|sewing|crocheting|"
    "embroidery|quilting|woodworking|photography|pottery|ceramics|yoga|pilates|boxing|skating|ice skating|"
    "skateboarding|birdwatching|bird watching|kayaking|canoeing|sailing|camping|rowing|weightlifting|"
    "lifting|volunteering|calligraphy|origami|scrapbooking|stargazing|astronomy|archery|fencing|martial arts|"
    "karate|judo|taekwondo|wild swimming|trail running|horse riding|horseback riding|scuba diving|diving|"
    "birding|gaming|reading|podcasting|blogging|vlogging|beekeeping|foraging|geocaching|tai chi|crossfit|"
    "running marathons|sculpting|gymnastics|paddleboarding|windsurfing|kitesurfing|golfing|bowling"
).split("|")

# What is no longer eaten or drunk, given up without a verb ("I gave up sugar"), and which verb it takes.
GIVEN_UP = {
    "alcohol": "drink", "booze": "drink", "coffee": "drink", "caffeine": "drink", "soda": "drink",
    "beer": "drink", "wine": "drink", "energy drinks": "drink",
    "sugar": "eat", "meat": "eat", "red meat": "eat", "dairy": "eat", "bread": "eat", "carbs": "eat",
    "gluten": "eat", "chocolate": "eat", "junk food": "eat", "fast food": "eat", "pork": "eat", "fish": "eat",
    "sweets": "eat", "candy": "eat", "processed food": "eat", "cigarettes": "smoke",
}

MONTHS = ("january february march april may june july august september october november december "
          "jan feb mar apr jun jul aug sep sept oct nov dec").split()
