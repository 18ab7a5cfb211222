"""The static-site builder behind `confcal build`."""
