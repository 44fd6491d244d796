"""Generated from protos/scala40/v1 by `make proto`: do not edit."""
