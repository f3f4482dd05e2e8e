"""The errors a tool raises for the model to read."""

from __future__ import annotations

__all__ = ["ToolError", "ToolRefused", "ArgumentsMissing", "InvalidArguments"]


class ToolError(Exception):
    """A failure the model reads as written: ``raise ToolError("No table is free that day.
    Offer another day.")``. ``event_text`` is what logs and sinks get instead (a webhook sets it
    to the status only); by default the same text."""

    def __init__(self, message: str, *, event_text: str | None = None) -> None:
        if not isinstance(message, str):
            raise TypeError(
                f"{type(self).__name__}(message): message is the words the model reads, a str; got "
                f"{type(message).__name__} {message!r:.60}. Write the words, like "
                f'{type(self).__name__}("No table is free that day. Offer another day.").'
            )
        if event_text is not None and not isinstance(event_text, str):
            raise TypeError(
                f"{type(self).__name__}(event_text=): event_text is the text logs and sinks get, a str "
                f"or None; got {type(event_text).__name__}."
            )
        super().__init__(message)
        self.message = message
        self.event_text = event_text


class ToolRefused(ToolError):
    """The tool did not run: the model reads ``{"refused": message}`` and acts on its hint."""


class ArgumentsMissing(ToolRefused):
    """Required arguments were absent or blank: ``{"refused": message, "missing": [...]}``."""

    def __init__(self, message: str, missing: list[str], *, event_text: str | None = None) -> None:
        super().__init__(message, event_text=event_text)
        if isinstance(missing, str):
            # One name, not its letters: ArgumentsMissing(msg, "birth_date").
            missing = [missing]
        try:
            names = list(missing)
        except TypeError:
            names = None
        if names is None or not all(isinstance(name, str) for name in names):
            raise TypeError(
                f"ArgumentsMissing(message, missing): missing is the names of the absent arguments, "
                f"a list of str; got {missing!r:.60}. Write them like "
                'ArgumentsMissing("Ask the caller for the day.", ["day"]).'
            )
        self.missing = names


class InvalidArguments(ToolRefused):
    """Arguments the schema let through but their type refused (a day that does not exist):
    one line per problem, ``path: reason``. Hark adds the closing hint."""

    def __init__(self, lines: list[str], *, event_text: str) -> None:
        super().__init__("\n".join(lines), event_text=event_text)
        self.lines = list(lines)
