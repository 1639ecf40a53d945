"""Language-model agents (`llm:NAME`, issue 24): a chat model behind an OpenAI-compatible
endpoint plays through the same game engine as every other agent.

Nothing here is imported by `import harness`; the `openai` client (the optional extra
`llm`) is imported only when a model is actually asked (harness/agents/llm/client.py).
"""
