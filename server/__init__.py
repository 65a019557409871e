"""Sparrow's server side: the command line now, the Starlette app later. Never re-implements a rule."""
