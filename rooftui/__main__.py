from rooftui.cli import main

main()
