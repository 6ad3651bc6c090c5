"""Search over a big history: query times at N messages (goal: <= 100 ms to
the first results over 1,000,000 messages, ~500 MB of text, for Latin and CJK).

Builds a database in a temporary folder through the store's own API
(``Store.batch`` + ``add_messages``, so the search triggers do the indexing
exactly as in the app): N/100 conversations of 100 messages, ~500 characters
each, generated quickly from Zipf-weighted word lists (English ~70 %, Chinese
~15 %, Japanese ~10 %, mixed ~5 %, emoji sprinkled). Then times each query
(``Store.search(q, limit=50)``, snippets included): the first run and the
median of ``--repeat`` runs. It also times opening the store (probe and
quick_check included), a sidebar page, loading one conversation and a
streaming save.

    python -m benchmarks.store_search                 # 100,000 messages (~1-2 min)
    python -m benchmarks.store_search --messages 1000000   # the goal's size (slow: ~20+ min)

Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EN_WORDS = (
    "the of and to a in is it you that he was for on are with as I his they be at one have this from or had by "
    "hot word but what some we can out other were all there when up use your how said an each she which do their "
    "time if will way about many then them write would like so these her long make thing see him two has look "
    "more day could go come did number sound no most people my over know water than call first who may down side "
    "been now find any new work part take get place made live where after back little only round man year came "
    "show every good me give our under name very through just form sentence great think say help low line differ "
    "turn cause much mean before move right boy old too same tell does set three want air well also play small end "
    "put home read hand port large spell add even land here must big high such follow act why ask men change went "
    "light kind off need house picture try us again animal point mother world near build self earth father model "
    "function variable python rust compiler memory thread window button layout widget server request response "
    "database index query table column cache latency network socket stream token prompt reply context answer "
    "question example problem solution error warning debug release version branch commit merge review test "
    "asynchronous concurrency serialization deserialization kubernetes container orchestration quantization "
    "AI UI Qt GPU CPU OK"
).split()
ZH_WORDS = (
    "我们 你 他 的 是 在 有 这个 一个 不 了 和 就 都 也 说 要 会 可以 没有 什么 时候 因为 所以 但是 如果 "
    "问题 方法 用户 界面 设计 数据库 数据 模型 程序 代码 函数 变量 服务器 网络 内存 线程 窗口 按钮 布局 "
    "搜索 结果 测试 版本 错误 警告 文件 目录 系统 软件 硬件 性能 速度 优化 简单 复杂 重要 需要 使用 支持 "
    "中文 汉字 学习 工作 生活 朋友 今天 明天 昨天 世界 中国 北京 上海 天气 电脑 手机 应用 开发 工程师"
).split()
JA_WORDS = (
    "私 あなた これ それ あれ です ます した する いる ある ない から まで より ので けど "
    "日本語 検索 文章 テキスト カタカナ ひらがな 漢字 東京 大阪 今日 明日 昨日 天気 電車 会社 学校 "
    "データベース インターフェース 設計 ユーザー プログラム コード 関数 変数 サーバー ネットワーク メモリ "
    "スレッド ウィンドウ ボタン レイアウト 結果 テスト バージョン エラー 警告 ファイル 問題 方法"
).split()
EMOJI = "🎉 😀 😂 👍 🙏 🔥 ✅ ❤ 🚀 🐍 🦀 💡 📦 ⚠ 🤔 👀 🎨 🧪 📈 🌏".split()


def _zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


class TextMaker:
    """~500-character messages made fast from pre-built sentence pools."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        rng = self.rng
        en_w, zh_w, ja_w = (_zipf_weights(len(w)) for w in (EN_WORDS, ZH_WORDS, JA_WORDS))
        self.en = [
            " ".join(rng.choices(EN_WORDS, en_w, k=rng.randint(8, 18))).capitalize() + rng.choice(".?!")
            for _ in range(6000)
        ]
        self.zh = ["".join(rng.choices(ZH_WORDS, zh_w, k=rng.randint(8, 20))) + rng.choice("。？！，") for _ in range(3000)]
        self.ja = ["".join(rng.choices(JA_WORDS, ja_w, k=rng.randint(6, 14))) + rng.choice("。？！、") for _ in range(3000)]

    def message(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.70:
            parts = rng.choices(self.en, k=rng.randint(5, 14))
        elif kind < 0.85:
            parts = rng.choices(self.zh, k=rng.randint(3, 8))
        elif kind < 0.95:
            parts = rng.choices(self.ja, k=rng.randint(3, 8))
        else:
            parts = rng.choices(self.en, k=3) + rng.choices(self.zh, k=3) + rng.choices(self.ja, k=2)
        if rng.random() < 0.1:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(EMOJI))
        return " ".join(parts)


QUERIES = (
    ("latin common word", "python"),
    ("latin rare word", "kubernetes"),
    ("latin two words", "database index"),
    ("latin phrase", '"the server"'),
    ("latin short word", "AI"),
    ("latin, no hit", "zqxjvw"),
    ("CJK 2 chars", "界面"),
    ("CJK 3 chars", "数据库"),
    ("CJK long", "用户界面设计"),
    ("Japanese 3 chars", "日本語"),
    ("Japanese 2 chars", "検索"),
    ("Japanese katakana", "カタカナ"),
    ("emoji", "🎉"),
    ("CJK, no hit", "鑫龘"),
    ("mixed short+long", "界面 python"),
    ("hostile syntax", 'NEAR("a" * -b) OR ('),
)


def build(path: Path, messages: int, per_conversation: int) -> dict[str, Any]:
    from app.core.conversation.model import Message, MessageMeta, MessageStatus
    from app.core.store import ConversationInfo, Store

    result = Store.open(path)
    assert result.store is not None, result.notices
    store = result.store
    maker = TextMaker()
    t0 = time.perf_counter()
    chars = 0
    made = 0
    base = time.time() - messages * 5.0
    batch_convs = max(1, 2000 // per_conversation)
    while made < messages:
        with store.batch():
            for _ in range(batch_convs):
                if made >= messages:
                    break
                n = min(per_conversation, messages - made)
                info = ConversationInfo(title=maker.en[made % len(maker.en)][:40], created_at=base + made * 5.0,
                                        updated_at=base + (made + n) * 5.0)
                store.create_conversation(info)
                msgs = []
                parent = None
                for i in range(n):
                    text = maker.message()
                    chars += len(text.encode("utf-8"))
                    role = "user" if i % 2 == 0 else "assistant"
                    meta = MessageMeta("bench.gguf", "stop", len(text) // 4, 100, 40.0, 150.0) if role == "assistant" else None
                    msg = Message(role, text, MessageStatus.COMPLETE, created_at=base + (made + i) * 5.0,
                                  meta=meta, parent_id=parent)
                    msgs.append(msg)
                    parent = msg.id
                store.add_messages(info.id, msgs)
                made += n
        if made % 50_000 < batch_convs * per_conversation:
            print(f"  {made:,} messages, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    build_s = time.perf_counter() - t0
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    return {"build_s": round(build_s, 1), "text_mb": round(chars / 1e6, 1)}


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def measure(path: Path, repeat: int) -> dict[str, Any]:
    from app.core.conversation.model import Message, MessageStatus
    from app.core.store import Store

    t0 = time.perf_counter()
    result = Store.open(path)
    open_s = time.perf_counter() - t0
    store = result.store
    assert store is not None, result.notices
    out: dict[str, Any] = {"open_ms": _ms(open_s), "queries": []}
    t0 = time.perf_counter()
    quick = store.conn.execute("PRAGMA quick_check").fetchall()
    out["quick_check_ms"] = _ms(time.perf_counter() - t0)
    assert quick == [("ok",)]
    for label, query in QUERIES:
        t0 = time.perf_counter()
        hits = store.search(query, 50)
        first = time.perf_counter() - t0
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            store.search(query, 50)
            times.append(time.perf_counter() - t0)
        out["queries"].append({
            "label": label, "query": query, "hits": len(hits), "first_ms": _ms(first),
            "median_ms": _ms(statistics.median(times)), "max_ms": _ms(max(times)),
        })
    times = []
    total = store.count_conversations()
    for offset in (0, total // 2, max(0, total - 50)):
        t0 = time.perf_counter()
        store.list_conversations(offset, 50, with_counts=True)
        times.append(time.perf_counter() - t0)
    out["sidebar_page_ms"] = _ms(statistics.median(times))
    conv_id = store.list_conversations(0, 1)[0].id
    t0 = time.perf_counter()
    msgs = store.load_messages(conv_id)
    out["load_conversation_ms"] = _ms(time.perf_counter() - t0)
    out["load_conversation_messages"] = len(msgs)
    live = Message("assistant", "", MessageStatus.STREAMING, parent_id=msgs[-1].id)
    store.add_message(conv_id, live)
    saves = []
    for i in range(200):
        live.append(f"streamed token {i} ")
        t0 = time.perf_counter()
        store.save_message(live)
        saves.append(time.perf_counter() - t0)
    out["save_message_median_ms"] = _ms(statistics.median(saves))
    out["save_message_max_ms"] = _ms(max(saves))
    live.status = MessageStatus.COMPLETE
    t0 = time.perf_counter()
    store.save_message(live)
    out["finish_save_ms"] = _ms(time.perf_counter() - t0)
    store.delete_message(live.id)
    store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--per-conversation", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the database at this path and keep it")
    args = parser.parse_args(argv)

    tmp = None
    if args.keep:
        path = args.keep
        built: dict[str, Any] = {"reused": path.exists()}
    else:
        tmp = Path(tempfile.mkdtemp(prefix="rill-store-bench-"))
        path = tmp / "rill.db"
        built = {}
    try:
        if not path.exists():
            print(f"building {args.messages:,} messages in {path} ...", file=sys.stderr, flush=True)
            built.update(build(path, args.messages, args.per_conversation))
        built["db_mb"] = round(path.stat().st_size / 1e6, 1)
        res = measure(path, args.repeat)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    res = {"messages": args.messages, **built, **res}
    print(f"\n{args.messages:,} messages, text {res.get('text_mb', '?')} MB, database {res['db_mb']} MB, "
          f"built in {res.get('build_s', '?')} s")
    print(f"open {res['open_ms']} ms, quick_check {res['quick_check_ms']} ms, sidebar page {res['sidebar_page_ms']} ms, "
          f"load {res['load_conversation_messages']} messages {res['load_conversation_ms']} ms, "
          f"streaming save median {res['save_message_median_ms']} ms (max {res['save_message_max_ms']}), "
          f"final save (indexing) {res['finish_save_ms']} ms")
    print(f"{'query':<22} {'text':<22} {'hits':>5} {'first ms':>9} {'median ms':>10} {'max ms':>8}")
    for q in res["queries"]:
        print(f"{q['label']:<22} {q['query']:<22} {q['hits']:>5} {q['first_ms']:>9} {q['median_ms']:>10} {q['max_ms']:>8}")
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
