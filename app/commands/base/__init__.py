"""What every subcommand is built with: option value types, progress lines and the terminal."""
