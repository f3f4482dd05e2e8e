"""Hark inside a plain Pipecat pipeline (pipecat-ai 1.14).

- :class:`LocalClassifier`: Hark's local classifier as a Pipecat classifier, for Pipecat's own
  ``UIWorker`` (``UIWorker("ui", llm=llm, classifier=LocalClassifier())``): its screen
  questions answered in-process in milliseconds, with calibrated probabilities and no network;
  :class:`LocalClassifierError` when it cannot answer.

Not built yet: ``tools_schema``, ``attach_call``, ``end_call_tool``, ``reply_text`` and
``user_mute_strategies``.
"""

from hark.pipecat.classifier import LocalClassifier, LocalClassifierError

__all__ = ["LocalClassifier", "LocalClassifierError"]
