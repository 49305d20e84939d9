"""The provider's one setting: the path of the tumble command."""

#: the setting's name (empty: the environment variable TUMBLE_COMMAND, then PATH)
TUMBLE_COMMAND = "TUMBLE_COMMAND"


def tumble_setting():
    """The path of the tumble command set in the provider's settings, or None."""
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:
        return None
    value = ProcessingConfig.getSetting(TUMBLE_COMMAND)
    return str(value).strip() or None if value else None
