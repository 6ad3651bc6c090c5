"""Realistic earlier conversation for the doctor and the benchmarks (Qt-free).

Messages alternate user / assistant; replies mix paragraphs, fenced code,
tables, lists, quotes and a little Chinese and emoji, with lengths that vary
the way real replies do (a few hundred to a few thousand characters).
Deterministic: the same arguments give the same messages.
"""

from __future__ import annotations

import random

from app.core.backends.scripted import SAMPLE_MARKDOWN
from app.core.conversation.model import Message, MessageMeta, MessageStatus, Role

_PARAGRAPHS = [
    "Streaming keeps the window alive: the worker produces tokens, a bounded buffer carries them, "
    "and the GUI appends plain text on a timer tick while formatting waits for complete blocks.",
    "A context window is the number of tokens the model can look at once. When the conversation "
    "grows past it, earlier turns have to be dropped or summarised, which is why a model seems "
    "to forget the start of a long chat.",
    "Quantisation stores weights with fewer bits. Q4 files are about a quarter of the size of the "
    "16-bit originals and run well on a CPU, at a small cost in quality.",
    "流式输出让界面保持响应：模型每生成一个词元，窗口就显示出来，而不是等整段回答结束。",
    "Temperature controls randomness: near 0 the model picks the likeliest token every time; "
    "higher values make it more varied, and more likely to wander. 😀",
]

_CODE = [
    "```python\nimport asyncio\n\nasync def main() -> None:\n    for i in range(3):\n"
    "        await asyncio.sleep(0.1)\n        print(f\"tick {i}\")\n\nasyncio.run(main())\n```",
    "```rust\nfn main() {\n    let v: Vec<u32> = (1..=10).map(|x| x * x).collect();\n"
    "    println!(\"{:?}\", v);\n}\n```",
    "```bash\npython -m venv .venv && . .venv/bin/activate\npip install rill\nrill doctor --backend scripted\n```",
    "```json\n{\"model\": \"smollm2\", \"temperature\": 0.6, \"max_tokens\": 512}\n```",
]

_TABLE = (
    "| Model | Size | Context |\n|---|---|---|\n| SmolLM2-135M | 98 MB | 8,192 |\n"
    "| Qwen2.5-0.5B | 400 MB | 32,768 |\n| Llama-3.2-1B | 800 MB | 131,072 |"
)

_LIST = "1. Open a model.\n2. Type a question.\n3. Press **Enter**.\n\n- `Esc` stops\n- `Ctrl+F` finds"

_QUESTIONS = [
    "How does streaming stay smooth?",
    "What is a context window?",
    "Can you show me some code?",
    "Compare a few small models in a table.",
    "为什么界面不会卡住？",
    "Summarise what we discussed.",
]


def _reply(rng: random.Random) -> str:
    if rng.random() < 0.08:
        return SAMPLE_MARKDOWN
    parts = [f"## {rng.choice(['Overview', 'Details', 'Example', '小结', 'Answer'])}"]
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.45:
            parts.append(" ".join(rng.choice(_PARAGRAPHS) for _ in range(rng.randint(1, 3))))
        elif r < 0.7:
            parts.append(rng.choice(_CODE))
        elif r < 0.82:
            parts.append(_TABLE)
        elif r < 0.94:
            parts.append(_LIST)
        else:
            parts.append("> " + rng.choice(_PARAGRAPHS))
    return "\n\n".join(parts) + "\n"


def history_messages(n: int, seed: int = 7) -> list[Message]:
    """``n`` finished messages (alternating user / assistant, starting with
    user), each the child of the one before (one path, as a conversation)."""
    rng = random.Random(seed)
    out: list[Message] = []
    for i in range(n):
        if i % 2 == 0:
            out.append(Message(Role.USER.value, f"{rng.choice(_QUESTIONS)} (turn {i // 2})"))
        else:
            out.append(
                Message(
                    Role.ASSISTANT.value,
                    _reply(rng),
                    MessageStatus.COMPLETE,
                    meta=MessageMeta(model="history", finish_reason="stop", tokens=rng.randint(50, 800)),
                )
            )
    _chain(out)
    return out


def _chain(messages: list[Message]) -> None:
    for prev, msg in zip(messages, messages[1:], strict=False):
        msg.parent_id = prev.id


def history_of_chars(chars: int, seed: int = 7) -> list[Message]:
    """Enough messages for about ``chars`` characters (an even count)."""
    rng = random.Random(seed)
    out: list[Message] = []
    total = 0
    i = 0
    while total < chars:
        batch = history_messages(2, seed=rng.randrange(1 << 30))
        for msg in batch:
            total += len(msg)
        out.extend(batch)
        i += 1
    _chain(out)
    return out
