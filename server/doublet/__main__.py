from doublet.cli.main import main

raise SystemExit(main())
