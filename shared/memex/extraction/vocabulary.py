"""Closed word lists the offline rules recognise a fact by: relations, children, pets, breeds,
health conditions, hobbies, what one plays, what one gives up, nationalities, fields of study, car
makers, who one lives with. A rule that takes a value only from a list never invents one; what is
not listed is missed, and stays searchable in the message itself. And the function words, which the
rules' sieve and the search both read."""

from __future__ import annotations

from memex.literal import caseless

# Words that say what kind of sentence or question it is, not what it is about: in most sentences, so
# the offline rules' sieve does not count on them (offline/matching.py); retrieval/learned.py's
# "asked_words" counts the others, and a question of these alone finds no line by its meaning
# (retrieval/search.py). "user" is here because memex writes every fact of the user with it.
FUNCTION_WORDS = frozenset("""
a about after again all also am an and any are as at be been before being but by can could did do does
doing done ever for from get go going got had has have having he her hers him his how i if in into is it
its just kind kinds like many me more most much my no not now of on once one or other our out over own
same she should so some such than that the their them then there these they thing things this those to
too type types under up user users very was we went were what when where which while who whom why will
with would you your yours
""".split())

# The people a user names by what they are to them ("my wife"), and which fact each one's name is
# filed under (`{part}_name`).
RELATIONS = {
    "wife": "partner", "husband": "partner", "partner": "partner", "girlfriend": "partner",
    "boyfriend": "partner", "fiancé": "partner", "fiancée": "partner", "fiance": "partner",
    "fiancee": "partner", "spouse": "partner", "sister": "sister", "brother": "brother",
    "mom": "mother", "mum": "mother", "mother": "mother", "dad": "father", "father": "father",
    "son": "child", "daughter": "child", "best friend": "friend", "friend": "friend", "bff": "friend",
    "bestie": "friend",
}
# Children counted or named together ("two daughters, Ava and Mia"), and what each one is.
CHILDREN = {"sons": "son", "daughters": "daughter", "kids": "child", "children": "child", "boys": "son",
            "girls": "daughter"}
# Other people a user speaks of by their place in the user's life (what a question about them names).
OTHER_PEOPLE = ("boss", "manager", "colleague", "coworker", "roommate", "flatmate", "neighbour", "neighbor",
                "parents")
# The family beyond RELATIONS' (the family's facts to a question about the family, retrieval/topics.py),
# and the fact each one's name is filed under (`{part}_name`, `cousin_priya_role`).
KIN = {"cousin": "cousin", "aunt": "aunt", "uncle": "uncle", "grandma": "grandmother", "grandmother": "grandmother",
       "granny": "grandmother", "grandpa": "grandfather", "grandfather": "grandfather", "grandad": "grandfather",
       "granddad": "grandfather"}
# Whom "grandparents" names: no fact is filed under the word.
GRANDPARENTS = ("grandmother", "grandfather")
# People beside the relatives whose names and facts the offline rules file, the kin among them, and the
# fact each one's name is filed under (`{part}_name`, `colleague_tom_role`).
PEOPLE = {"boss": "boss", "manager": "boss", "colleague": "colleague", "coworker": "colleague", "co-worker": "colleague",
          "roommate": "roommate", "flatmate": "roommate", "housemate": "roommate", "neighbour": "neighbor",
          "neighbor": "neighbor", **KIN}
# Pets by the word a user says, and the kind their facts are filed under (`pet_{part}_name`).
PETS = {"dog": "dog", "puppy": "dog", "pup": "dog", "cat": "cat", "kitten": "cat", "kitty": "cat",
        "rabbit": "rabbit", "bunny": "rabbit", "horse": "horse", "pony": "pony", "hamster": "hamster",
        "guinea pig": "guinea_pig", "gerbil": "gerbil", "ferret": "ferret", "chinchilla": "chinchilla",
        "hedgehog": "hedgehog", "parrot": "parrot", "budgie": "budgie", "cockatiel": "cockatiel",
        "bird": "bird", "goldfish": "fish", "fish": "fish", "turtle": "turtle", "tortoise": "tortoise",
        "snake": "snake", "lizard": "lizard", "gecko": "gecko", "iguana": "iguana",
        # Backyard birds many households keep; not goats, sheep or cows, which are a farm's stock.
        "chicken": "chicken", "hen": "chicken", "duck": "duck"}

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

# The diets a person keeps one of at a time, as the offline rules read them: "vegan" replaces "vegetarian"
# (supersession.DIETS), where a condition ("lactose intolerant") or a rule of faith ("halal") replaces none.
DIETS = ("vegetarian", "vegan", "pescatarian", "pescetarian")

# What is no longer eaten or drunk, given up without a verb ("I gave up sugar"), and which verb it takes.
GIVEN_UP = {
    "alcohol": "drink", "booze": "drink", "coffee": "drink", "caffeine": "drink", "soda": "drink",
    "beer": "drink", "wine": "drink", "energy drinks": "drink",
    "sugar": "eat", "meat": "eat", "red meat": "eat", "dairy": "eat", "bread": "eat", "carbs": "eat",
    "gluten": "eat", "chocolate": "eat", "junk food": "eat", "fast food": "eat", "pork": "eat", "fish": "eat",
    "sweets": "eat", "candy": "eat", "processed food": "eat", "cigarettes": "smoke",
}

# Countries, states and provinces: a region, which a town lies within (supersession._towns_within).
REGIONS = frozenset(caseless(name) for name in (
    # countries
    "Afghanistan|Albania|Algeria|Argentina|Armenia|Australia|Austria|Azerbaijan|Bahrain|Bangladesh|Belarus|"
    "Belgium|Bolivia|Bosnia|Botswana|Brazil|Bulgaria|Cambodia|Cameroon|Canada|Chile|China|Colombia|Costa Rica|"
    "Croatia|Cuba|Cyprus|Czechia|Czech Republic|Denmark|Ecuador|Egypt|El Salvador|England|Estonia|Ethiopia|"
    "Finland|France|Georgia|Germany|Ghana|Greece|Guatemala|Honduras|Hungary|Iceland|India|Indonesia|Iran|Iraq|"
    "Ireland|Israel|Italy|Jamaica|Japan|Jordan|Kazakhstan|Kenya|Korea|South Korea|Kuwait|Latvia|Lebanon|"
    "Lithuania|Luxembourg|Malaysia|Malta|Mexico|Moldova|Mongolia|Montenegro|Morocco|Mozambique|Myanmar|Nepal|"
    "Netherlands|the Netherlands|Holland|New Zealand|Nicaragua|Nigeria|Northern Ireland|Norway|Oman|Pakistan|"
    "Panama|Paraguay|Peru|Philippines|the Philippines|Poland|Portugal|Puerto Rico|Qatar|Romania|Russia|Rwanda|"
    "Saudi Arabia|Scotland|Senegal|Serbia|Singapore|Slovakia|Slovenia|South Africa|Spain|Sri Lanka|Sweden|"
    "Switzerland|Syria|Taiwan|Tanzania|Thailand|Tunisia|Turkey|Uganda|Ukraine|United Arab Emirates|"
    "United Kingdom|the UK|UK|United States|the US|the USA|US|USA|UAE|Uruguay|Uzbekistan|Venezuela|Vietnam|Wales|"
    "Zambia|Zimbabwe|"
    # US states, Canadian provinces
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Hawaii|Idaho|Illinois|"
    "Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|"
    "Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|"
    "North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|"
    "Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|Alberta|British Columbia|Manitoba|"
    "Nova Scotia|Ontario|Quebec|Saskatchewan"
).split("|"))
# Places a move between two names is told by: "I moved from Paris to London" is a move, "I moved
# from Google to Meta" a job change, and without a list nothing in the words tells them apart.
# Countries, US states and Canadian provinces, and the cities people most often name; a move
# between two unlisted names that do not look like organisations is left unread.
PLACES = REGIONS | frozenset(caseless(name) for name in (
    # cities
    "Amsterdam|Athens|Atlanta|Auckland|Austin|Baltimore|Bangalore|Bengaluru|Bangkok|Barcelona|Beijing|Beirut|"
    "Belfast|Belgrade|Berlin|Bern|Bilbao|Birmingham|Bogota|Bologna|Bordeaux|Boston|Boulder|Bratislava|Brighton|"
    "Brisbane|Bristol|Brooklyn|Brussels|Bucharest|Budapest|Buenos Aires|Cairo|Calgary|Cambridge|Canberra|"
    "Cape Town|Cardiff|Charlotte|Chennai|Chicago|Cincinnati|Cleveland|Cologne|Copenhagen|Cork|Dallas|"
    "Delhi|New Delhi|Denver|Detroit|Dhaka|Doha|Dubai|Dublin|Durham|Edinburgh|Florence|Frankfurt|Geneva|Glasgow|"
    "Gothenburg|Guadalajara|Hamburg|Hanoi|Helsinki|Ho Chi Minh City|Hong Kong|Honolulu|Houston|Hyderabad|"
    "Indianapolis|Istanbul|Jakarta|Jerusalem|Johannesburg|Kansas City|Karachi|Kathmandu|Kyiv|Kiev|Kolkata|"
    "Krakow|Kuala Lumpur|Kyoto|Lagos|Lahore|Las Vegas|Leeds|Leipzig|Lima|Lisbon|Liverpool|Ljubljana|London|"
    "Los Angeles|LA|Lyon|Madrid|Manchester|Manila|Marseille|Medellin|Melbourne|Memphis|Miami|Milan|Milwaukee|"
    "Minneapolis|Montreal|Moscow|Mumbai|Munich|Nairobi|Naples|Nashville|New Orleans|NYC|New York City|Newcastle|"
    "Nice|Oakland|Osaka|Oslo|Ottawa|Oxford|Palo Alto|Paris|Perth|Philadelphia|Phoenix|Pittsburgh|Portland|Porto|"
    "Prague|Pune|Quito|Raleigh|Reykjavik|Riga|Rio|Rio de Janeiro|Riyadh|Rome|Rotterdam|Sacramento|"
    "Salt Lake City|San Antonio|San Diego|San Francisco|SF|San Jose|Santiago|Sao Paulo|São Paulo|Sapporo|Seattle|"
    "Seoul|Seville|Shanghai|Shenzhen|Sheffield|Stockholm|Stuttgart|Sydney|Taipei|Tallinn|Tampa|Tbilisi|"
    "Tel Aviv|Tokyo|Toronto|Toulouse|Turin|Utrecht|Valencia|Vancouver|Venice|Vienna|Vilnius|Warsaw|"
    "Washington DC|Washington D.C.|DC|Wellington|Zagreb|Zurich|Zürich"
).split("|"))

# Departments and functions of an organisation, which a move within a company goes to ("I moved to
# Sales", "My sister Jo moved to Marketing", "I moved from Sales to Engineering"): no city and no
# employer. Only words that name no place and no company (tests/test_offline_extractor.py checks it);
# a team's own name ("the Growth team") is told by the word "team" (_A_TEAM), not by this list.
DEPARTMENTS = frozenset(caseless(name) for name in (
    "Sales|Marketing|Engineering|Finance|Accounting|Accounts|HR|Human Resources|People Ops|Legal|Compliance|"
    "Operations|Ops|Product|Product Management|Design|Research|R&D|IT|QA|Customer Service|Customer Support|"
    "Support|Procurement|Purchasing|Logistics|Recruiting|Recruitment|Admin|Administration|Management|"
    "Data Science|Analytics|Security|Communications|Comms|PR|Public Relations|Business Development|BizDev"
).split("|"))

# What a teacher teaches ("I teach chemistry at a secondary school"): the subject makes the role.
SCHOOL_SUBJECTS = (
    "chemistry|physics|biology|science|maths|math|mathematics|english|history|geography|french|spanish|german|"
    "italian|latin|art|music|drama|pe|economics|computer science|computing|philosophy|psychology|sociology|"
    "religious studies|literature|design and technology|business studies|statistics|engineering|nursing|law"
).split("|")

# Employers well known enough that "I moved from Google to Meta" is a job change although neither
# name has an organisation's shape ("Inc", "Labs", "3M", "PwC"; those are told by their shape and
# need no list). Only organisations people work for and that customers do not move between: big tech
# and enterprise software, consultancies and accountancies, investment banks and funds,
# pharmaceutical companies, hospital systems. Left out on purpose, because "I moved from one to the
# other" is as often a customer's switch as a job change: retail banks, supermarkets and shops,
# phone networks, airlines, carmakers, streaming services and apps, software a company migrates
# from one to the other (Snowflake, Workday), and every name of a product rather than a company
# ("Apple Music", "Google Docs"). Universities too: a student moves between
# them. None of these is a known place (tests/test_offline_extractor.py checks it).
WELL_KNOWN_EMPLOYERS = frozenset(caseless(name) for name in (
    # big tech and enterprise software
    "Google|Alphabet|Meta|Microsoft|Amazon|Apple|Netflix|Nvidia|Intel|Oracle|Salesforce|Adobe|Cisco|"
    "Qualcomm|Broadcom|Siemens|Bosch|Philips|Ericsson|Tencent|Alibaba|Baidu|Infosys|Wipro|Palantir|"
    "Atlassian|Shopify|Airbnb|Uber|Stripe|Anthropic|Spotify|LinkedIn|PayPal|Samsung|Sony|IBM|TikTok|ByteDance|"
    # consultancies and accountancies
    "McKinsey|Bain|Boston Consulting Group|Deloitte|Accenture|Capgemini|Cognizant|Oliver Wyman|"
    "Roland Berger|Grant Thornton|Booz Allen|Booz Allen Hamilton|Gartner|"
    # investment banks and funds
    "Goldman Sachs|Goldman|Morgan Stanley|Lazard|Evercore|Rothschild|Jefferies|Nomura|Macquarie|"
    "Citadel|Jane Street|Two Sigma|Bridgewater|Blackstone|Carlyle|"
    # pharmaceutical companies
    "Pfizer|Novartis|Roche|Merck|Sanofi|Bayer|Eli Lilly|Novo Nordisk|Amgen|Bristol Myers Squibb|Takeda|"
    "Genentech|Medtronic|"
    # hospital systems
    "Mayo Clinic|Cleveland Clinic|Kaiser Permanente|Johns Hopkins|Mass General|Mount Sinai"
).split("|"))

# Hotels and places to sleep: "Decided to stay at Marriott" is a stay, not the job kept (plans._called_off).
HOTELS = frozenset(caseless(name) for name in (
    "Marriott|Hilton|Hyatt|Sheraton|Westin|Radisson|Ibis|Novotel|Mercure|Sofitel|Accor|Holiday Inn|Premier Inn|"
    "Travelodge|Best Western|Four Seasons|Ritz|Ritz-Carlton|InterContinental|Crowne Plaza|Motel One|Kimpton|"
    "Fairmont|Wyndham|Ramada|Days Inn|Hampton Inn|Courtyard|Mandarin Oriental|Shangri-La|Meliá|Melia|Pestana"
).split("|"))
_HOTEL_WORDS = frozenset(("hotel", "hostel", "inn", "motel", "resort", "lodge", "b&b", "guesthouse"))


def a_hotel(name: str) -> bool:
    """A hotel by its chain's name ("Marriott") or by its own word ("Hotel Lisboa", "Casa Azul B&B")."""
    words = caseless(name).split()
    return caseless(name) in HOTELS or not _HOTEL_WORDS.isdisjoint(words)


# Well-known employers whose products a customer switches between ("My wife switched from Apple to
# Samsung" is a phone): a switch between two of one kind says no job change.
SWITCHED_AS_A_CUSTOMER = tuple(frozenset(caseless(name) for name in kind.split("|")) for kind in (
    "Apple|Samsung|Google|Sony|Microsoft",  # phones, laptops, consoles, search, mail, office tools
    "Uber|Lyft|Airbnb",  # rides and stays
    "Netflix|Spotify|Amazon|Apple|Google|TikTok|Meta|Sony",  # streaming, shopping, social
    "PayPal|Stripe|Shopify|Amazon",  # payments and shops ("Google Pay" is said so)
    "Google|Microsoft|Amazon|Oracle|IBM|Salesforce|Adobe|Atlassian",  # clouds and business software
))

# Languages a user may ask to be answered in ("Please answer in French").
LANGUAGES = (
    "English|Spanish|French|German|Portuguese|Italian|Dutch|Swedish|Norwegian|Danish|Finnish|Polish|Czech|"
    "Greek|Turkish|Russian|Ukrainian|Romanian|Hungarian|Arabic|Hebrew|Persian|Farsi|Hindi|Urdu|Bengali|Tamil|"
    "Chinese|Mandarin|Cantonese|Japanese|Korean|Vietnamese|Thai|Indonesian|Malay|Tagalog|Swahili|Catalan|"
    "Basque|Galician|Irish|Welsh|Icelandic"
).split("|")

# What a person is by nationality ("I'm Brazilian", "I have Irish citizenship"): the adjectives of
# countries only, not of a region, a religion or an ethnicity ("I'm Asian", "I'm Jewish", "I'm
# Latina" say no citizenship).
NATIONALITIES = (
    "American|British|English|Scottish|Welsh|Irish|Canadian|Australian|New Zealander|Mexican|Brazilian|"
    "Argentinian|Argentine|Chilean|Colombian|Peruvian|Venezuelan|Ecuadorian|Bolivian|Uruguayan|Paraguayan|"
    "Cuban|Dominican|Puerto Rican|Jamaican|Haitian|Guatemalan|Honduran|Salvadoran|Costa Rican|Panamanian|"
    "Nicaraguan|French|German|Italian|Spanish|Portuguese|Dutch|Belgian|Swiss|Austrian|Swedish|Norwegian|"
    "Danish|Finnish|Icelandic|Polish|Czech|Slovak|Hungarian|Romanian|Bulgarian|Greek|Cypriot|Maltese|Turkish|"
    "Russian|Ukrainian|Belarusian|Serbian|Croatian|Bosnian|Slovenian|Albanian|Lithuanian|Latvian|Estonian|"
    "Georgian|Armenian|Azerbaijani|Israeli|Lebanese|Syrian|Iraqi|Iranian|Jordanian|Palestinian|Saudi|Emirati|"
    "Qatari|Egyptian|Moroccan|Algerian|Tunisian|Nigerian|Ghanaian|Kenyan|Ethiopian|Somali|Ugandan|Tanzanian|"
    "Rwandan|Zimbabwean|South African|Senegalese|Cameroonian|Sudanese|Indian|Pakistani|Bangladeshi|"
    "Sri Lankan|Nepali|Nepalese|Afghan|Chinese|Japanese|Korean|South Korean|Taiwanese|Vietnamese|Thai|"
    "Filipino|Filipina|Indonesian|Malaysian|Singaporean|Mongolian|Kazakh|Uzbek"
).split("|")

# What one studies or has a degree in ("I studied biology", "a master's in pharmacology"): a closed
# list, so that "I'm studying the menu" or "a PhD in overthinking" is no field of study.
FIELDS_OF_STUDY = tuple(dict.fromkeys([*SCHOOL_SUBJECTS, *(
    "medicine|computer science|economics|finance|accounting|business|business administration|marketing|"
    "management|architecture|civil engineering|mechanical engineering|electrical engineering|"
    "chemical engineering|software engineering|aerospace engineering|data science|applied mathematics|"
    "astrophysics|biochemistry|molecular biology|microbiology|neuroscience|genetics|ecology|"
    "environmental science|geology|pharmacology|pharmacy|dentistry|veterinary medicine|public health|"
    "anthropology|political science|politics|international relations|art history|classics|linguistics|"
    "english literature|comparative literature|journalism|communications|media studies|film|film studies|"
    "graphic design|fine art|fine arts|theatre|theater|education|criminology|social work|nutrition|"
    "agriculture|urban planning|mandarin|chinese|japanese|korean|arabic|russian|portuguese"
).split("|")]))

# What a person starts that is an event of their life worth keeping ("My son Leo started school"):
# a stage of schooling; a pastime (vocabulary above), with its lessons or its club, is one too.
SCHOOLING = (
    "school|a new school|preschool|pre-school|kindergarten|nursery|daycare|day care|primary school|"
    "elementary school|middle school|high school|secondary school|sixth form|college|university|uni|"
    "grad school|graduate school|law school|med school|medical school|nursing school"
).split("|")

# Universities known by their name alone: "…then I start at Harvard in the fall" is a student's start, not a job's.
UNIVERSITIES = (
    "Harvard|Yale|Princeton|Stanford|MIT|Caltech|Oxford|Cambridge|Berkeley|Columbia|Cornell|UCLA|NYU|Georgetown|"
    "Duke|Dartmouth|Imperial|LSE|UCL|Edinburgh|McGill|Sorbonne|ETH"
).split("|")

# Carmakers, as written capitalised ("I drive a Tesla Model 3", "a VW Golf"): the car is the maker and
# the capitalised words or numbers of its model after it. Left out: makers whose name is as often
# another word a user capitalises ("Smart", "Seat", "Genesis", "Ram", "Lincoln").
CAR_MAKES = (
    "Tesla|Toyota|Honda|Ford|Chevrolet|Chevy|Nissan|BMW|Mercedes|Mercedes-Benz|Audi|Volkswagen|VW|Subaru|Mazda|"
    "Hyundai|Kia|Volvo|Porsche|Lexus|Jeep|Dodge|Fiat|Peugeot|Renault|Citroën|Citroen|Skoda|Škoda|Mini|Jaguar|"
    "Land Rover|Range Rover|Mitsubishi|Suzuki|Polestar|Rivian|Lucid|Cadillac|Buick|GMC|Chrysler|Acura|Infiniti|"
    "Alfa Romeo|Maserati|Ferrari|Lamborghini|Bentley|Rolls-Royce|Aston Martin|Opel|Vauxhall|Dacia|BYD|Saab"
).split("|")
# What a car no longer the user's was done with, said before "the" one both know of ("We sold the Skoda").
CARS_PARTED_WITH = ("sold", "traded in", "got rid of", "scrapped")

# Who a user lives with, by what they are to the user ("My mom lives with us now", "I live with my
# parents"). Not a partner: living with one is what a partnership usually is, and a fact of it would
# outlive the partnership (supersession.about_partner_keys ends only what is said of a partner by name).
HOUSEHOLD = (
    "mom|mum|mother|dad|father|parents|sister|brother|son|daughter|kids|children|grandma|grandmother|grandpa|"
    "grandfather|grandparents|aunt|uncle|cousin|in-laws|mother-in-law|father-in-law|sister-in-law|"
    "brother-in-law|roommate|roommates|flatmate|flatmates|housemate|housemates|best friend|friend|friends|"
    "stepmom|stepdad|stepson|stepdaughter|niece|nephew"
).split("|")

# Places one goes to for the outing itself ("We took the kids to the zoo"), not on an errand (a
# hospital, a dentist, a shop): where an outing is an activity done.
OUTINGS = (
    "museum|art museum|science museum|history museum|art gallery|gallery|zoo|aquarium|park|theme park|"
    "amusement park|water park|national park|beach|botanical garden|botanical gardens|farm|pumpkin patch|fair|"
    "county fair|festival|music festival|concert|theatre|theater|circus|playground|bowling alley|ice rink|"
    "skating rink|escape room|trampoline park|safari park|wildlife park|nature reserve"
).split("|")

# Sports teams a fan names by the team's usual short name ("a big Arsenal fan", "Lifelong Yankees fan
# here"): a fan of a name alone may be a band's or a writer's, so only these, and a name shaped as a
# club's (offline/rules/likes.py's _TEAM_SHAPED: "Leeds United", "Cork City"), are read as a team followed.
SPORTS_TEAMS = (
    "Arsenal|Chelsea|Liverpool|Everton|Tottenham|Spurs|Man United|Man Utd|Man City|Newcastle|Aston Villa|"
    "West Ham|Fulham|Brentford|Brighton|Wolves|Southampton|Sunderland|Celtic|Rangers|Hibs|Hearts|Aberdeen|"
    "Barcelona|Barça|Real Madrid|Atletico Madrid|Bayern|Bayern Munich|Dortmund|Juventus|Juve|Inter Milan|AC Milan|"
    "Napoli|Roma|Lazio|PSG|Ajax|Benfica|Boca Juniors|"
    "Yankees|Red Sox|Mets|Cubs|White Sox|Dodgers|Giants|Mariners|Braves|Astros|Cardinals|Phillies|Orioles|"
    "Blue Jays|Lakers|Celtics|Knicks|Warriors|Bulls|Nets|Raptors|Sixers|76ers|Mavericks|Packers|"
    "Cowboys|Patriots|Steelers|Chiefs|Bears|49ers|Niners|Seahawks|Broncos|Raiders|Dolphins|"
    "Maple Leafs|Canadiens|Habs|Bruins|Red Wings|Blackhawks|Oilers|Canucks|"
    "All Blacks|Springboks|Wallabies|Leinster|Munster|Saracens|McLaren"
).split("|")


def article(word: str) -> str:
    """The indefinite article a fact's sentence writes before `word`: "an" before a vowel letter, of either
    case, else "a" (by the letter, not the sound: "an uniform", "a hour")."""
    return "an" if caseless(word[:1]) in "aeiou" else "a"
