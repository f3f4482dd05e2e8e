"""Hark inside a plain Pipecat pipeline (pipecat-ai 1.14).

Not built yet: ``tools_schema``, ``attach_call``, ``end_call_tool``, ``reply_text``,
``user_mute_strategies`` and ``LocalClassifier`` come with issue 18. Today the package holds its
build (the ``hark._core`` extension), and ``python/tests`` the scripted OpenAI-compatible server
and the real Pipecat pipeline harness their tests will run on.
"""
