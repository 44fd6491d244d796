"""The fair deal: commit-reveal shuffle, signed deal records and their offline verification."""
