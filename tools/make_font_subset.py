"""Rebuild course-cjk.ttf: the WenQuanYi Micro Hei glyphs for every CJK character the course draws.

Run from the repository root after installing the Debian package fonts-wqy-microhei:
    python -m tools.make_font_subset
The subset keeps the figures and the static pages readable on machines without a Chinese font (Binder, most
laptops).
"""

import re
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

from attention_lab.paths import repo_root

ROOT = repo_root(Path(__file__).parent)
SOURCE = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
GLOSSARY = "硬性注意力软性注意力汇聚查询键值评分函数核回归编码器解码器上下文向量对齐掩码缩放点积加性温度带宽"


def characters() -> str:
    # the figures' Chinese (data, notebooks) and the static pages' (the glossary, the home page as site_kit writes
    # it): the pages serve this font too, so Chinese draws in browsers without a Chinese font
    from tools.site_kit import index_page

    sources = [*ROOT.glob("data/*.csv"), *ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("notebooks/*.md")]
    texts = [p.read_text(encoding="utf-8") for p in sources] + [index_page([], {})]
    found = set(re.findall(r"[\u3000-\u9fff\uff00-\uffef]", "".join(texts) + GLOSSARY))
    return "".join(sorted(found))


def main():
    if not SOURCE.exists():
        raise SystemExit(f"make_font_subset: {SOURCE} is missing; install it first: apt-get install fonts-wqy-microhei")
    font = TTCollection(str(SOURCE)).fonts[0]
    options = subset.Options()
    options.name_IDs = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    chars = characters()
    subsetter.populate(text=chars)
    subsetter.subset(font)
    out = ROOT / "src" / "attention_lab" / "fonts" / "course-cjk.ttf"
    font.save(str(out))
    print(f"{len(chars)} characters -> {out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
