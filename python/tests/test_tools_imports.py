"""The reference's import lines, with `hark` for the package: every name it imports is there."""


def test_the_names_the_reference_imports():
    from hark.state import CallState, Phone  # noqa: F401
    from hark.tools import (  # noqa: F401
        Accepted,
        Assign,
        Done,
        ToolError,
        ToolRefused,
        ArgumentsMissing,
        ToolRegistry,
        ToolReply,
        ToolSpec,
        Transcript,
        WebhookAuth,
        WebhookOptions,
        current_datetime_tool,
        local_tool,
        replies_to,
        user_phone_number_tool,
        webhook_tool,
    )
    import hark

    for name in hark.__all__:
        assert getattr(hark, name) is not None, name
