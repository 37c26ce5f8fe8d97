from bench.probes import main

main()
