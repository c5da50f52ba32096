"""Rebuild course-cjk.ttf: the WenQuanYi Micro Hei glyphs for every CJK character the course draws.

Run from the repository root after installing the Debian package fonts-wqy-microhei:
    python -m tools.make_font_subset [FILE ...]
(FILEs: more texts whose characters to keep, e.g. translations of a branch not merged yet.)
The subset keeps the figures and the static pages readable on machines without a Chinese font (Binder, most
laptops). It covers every Chinese character of the data, the notebooks (English and zh), the glossary, the
translation files, README.zh.md and the library's Chinese messages: rebuild it after any of them gains a character
(tests/repository/test_packaging.py names a character the subset lacks). Remove the Debian package
again afterwards: a page test checks that without the shipped font Chinese would draw as boxes.
"""

import re
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

from attention_lab.paths import repo_root

ROOT = repo_root(Path(__file__).parent)
SOURCE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
LATIN_AND_SYMBOLS = (
    "".join(chr(c) for c in range(0x20, 0x7F))  # printable ASCII
    + "".join(chr(c) for c in range(0xA0, 0x100))  # Latin-1
    + "".join(chr(c) for c in (*range(0x391, 0x3A2), *range(0x3A3, 0x3AA), *range(0x3B1, 0x3CA)))  # Greek
    + "−×·°±≈≤≥→←↔∞′″–—‘’“”…√∑∏∂∇∈∉⊂∪∩≠≡∝"
)
GLOSSARY = "硬性注意力软性注意力汇聚查询键值评分函数核回归编码器解码器上下文向量对齐掩码缩放点积加性温度带宽"


def characters(extra=()) -> str:
    # the figures' Chinese (data, notebooks) and the static pages' (the glossary, the home page as site_kit writes
    # it): the pages serve this font too, so Chinese draws in browsers without a Chinese font
    from tools.site_kit import index_page

    # and the Chinese edition's: its translations (translations/zh/, the zh notebooks built from them, the Chinese
    # README) and the library's messages in Chinese (the gettext catalogues, attention_lab/i18n.py)
    sources = [
        *ROOT.glob("data/*.csv"),
        *ROOT.glob("notebooks/*.ipynb"),
        *ROOT.glob("notebooks/*.md"),
        *ROOT.glob("notebooks/zh/*.ipynb"),
        *ROOT.glob("translations/zh/*.json"),
        *ROOT.glob("README.zh.md"),
        *ROOT.glob("src/attention_lab/locale/*/LC_MESSAGES/*.po"),
    ]
    texts = [p.read_text(encoding="utf-8") for p in [*sources, *map(Path, extra)]] + [index_page([], {})]
    found = set(re.findall(r"[\u3000-\u9fff\uff00-\uffef\u2018-\u201d\u2026\u00b7\u2014]", "".join(texts) + GLOSSARY))
    # and what else a figure's text may hold: in Chinese, text mixing Chinese and math is drawn outside $...$ in
    # this font alone (plots.CJK_FIRST), and so are tick labels written in mathtext (the minus sign U+2212)
    return "".join(sorted(found | set(LATIN_AND_SYMBOLS)))


def main(argv=None):
    extra = sys.argv[1:] if argv is None else argv  # more files whose characters to keep (a branch not merged yet)
    if not SOURCE.exists():
        raise SystemExit(f"make_font_subset: {SOURCE} is missing; install it first: apt-get install fonts-wqy-microhei")
    font = TTCollection(str(SOURCE)).fonts[0]
    options = subset.Options()
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    chars = characters(extra)
    subsetter.populate(text=chars)
    subsetter.subset(font)
    out = ROOT / "src" / "attention_lab" / "fonts" / "course-cjk.ttf"
    font.save(str(out))
    print(f"{len(chars)} characters -> {out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
