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


def test_the_extensions_type_stub_names_every_public_name():
    import ast
    from pathlib import Path

    from hark import _core

    stub = ast.parse((Path(_core.__file__).parent / "_core.pyi").read_text())
    declared = {node.name for node in stub.body if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    public = {name for name in dir(_core) if not name.startswith("_")}
    assert public - declared == set()
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            methods = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
            inherited = set(dir(BaseException)) if issubclass(getattr(_core, node.name), BaseException) else set()
            real = {name for name in dir(getattr(_core, node.name)) if not name.startswith("_")} - inherited
            assert real - methods == set(), node.name
