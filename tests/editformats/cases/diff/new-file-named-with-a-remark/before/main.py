import config.settings
