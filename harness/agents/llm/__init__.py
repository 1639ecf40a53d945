"""Language-model agents (`llm:NAME`): a chat model behind an OpenAI-compatible
endpoint plays through the same game engine as every other agent.

Nothing here is imported by `import harness`. The client (client.py) speaks HTTP itself,
with the standard library (bounded_http.py says why): no package to install.
"""
