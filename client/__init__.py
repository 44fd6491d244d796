"""The prompt_toolkit terminal client."""
