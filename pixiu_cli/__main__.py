from pixiu_cli.cli import main

main()
