"""The language the library speaks: English (the default) or Chinese, through gettext catalogues.

Every message a reader sees (figure titles, axis labels and legends, the diagrams' labels, notebook 00's
version report, figure alt texts) is written in English in the code, wrapped in :func:`_` (or
:func:`ngettext` for a count), and looked up at the moment it is shown in the catalogue of the current
language, ``locale/<lang>/LC_MESSAGES/attention_lab.mo`` inside the package (so it ships with any install).
A message without a translation is shown in English. Select the language with ``set_language("zh")`` (the zh
notebooks do in their set-up cell), or for a whole process with the environment variable
``ATTENTION_LAB_LANG=zh``.

- Messages with values use named placeholders and ``.format`` after the lookup:
  ``_("epoch {epoch} of {epochs}").format(epoch=3, epochs=10)`` (never an f-string: the catalogue could not
  hold it).
- A message in a module-level constant (drawn later) is marked with :func:`N_`, which returns it unchanged,
  and translated with ``_(...)`` where it is drawn.
- The same English words with two meanings take a context: ``pgettext("training points", "training")``.
- A text for a reader of another language than this process's (a page built from a Chinese kernel's frames)
  takes that language's :func:`catalogue`.
- ``ValueError`` messages stay English, as numpy's and PyTorch's do.

The catalogues are extracted and compiled with Babel (CONTRIBUTING.md, "Updating the Chinese edition"):
``pybabel extract -F babel.cfg -o src/attention_lab/locale/attention_lab.pot src/attention_lab``, then
``pybabel update`` and ``pybabel compile`` with ``-D attention_lab -d src/attention_lab/locale``.
"""

from __future__ import annotations

import contextlib
import gettext
import os
from pathlib import Path

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "_",
    "catalogue",
    "get_language",
    "ngettext",
    "pgettext",
    "set_language",
    "speaking",
]

DOMAIN = "attention_lab"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
LANGUAGES = ("en", "zh")
ENVIRONMENT = "ATTENTION_LAB_LANG"

_state: dict = {"language": "en", "catalogue": gettext.NullTranslations()}


def _normalise(language, name: str) -> str:
    """``"zh"``, ``"zh_CN"``, ``"zh-Hans"`` -> ``"zh"``; ``"en_GB"`` -> ``"en"``; anything else is a ValueError."""
    if isinstance(language, str):
        short = language.strip().replace("-", "_").split("_")[0].split(".")[0].lower()
        if short in LANGUAGES:
            return short
    raise ValueError(f"{name} must be one of {', '.join(LANGUAGES)} (or a locale such as zh_CN), got {language!r}")


def catalogue(language: str) -> gettext.NullTranslations:
    """The messages of ``language`` (``"en"``: none, every message as written), without switching to it: for a
    text written for another reader than this process's, such as a page built from a Chinese notebook's run."""
    short = _normalise(language, "language")
    if short == "en":
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[short])
    except OSError as error:
        raise FileNotFoundError(
            f"the {short} catalogue of the course is missing from {LOCALE_DIR} ({error}); "
            "reinstall the course, or compile it with pybabel compile (CONTRIBUTING.md)"
        ) from None


def set_language(language: str) -> None:
    """Speak ``language`` from now on in this process: ``"zh"`` (Chinese) or ``"en"`` (English, the default)."""
    short = _normalise(language, "language")
    _state["language"], _state["catalogue"] = short, catalogue(short)


@contextlib.contextmanager
def speaking(language: str):
    """Speak ``language`` inside the ``with`` block only, then the language before it again (an explorer draws
    its later frames in the language it was built in, whatever the process speaks by then)."""
    short = _normalise(language, "language")
    before = dict(_state)
    _state["language"], _state["catalogue"] = short, catalogue(short)
    try:
        yield
    finally:
        _state.update(before)


def get_language() -> str:
    """The language the library speaks now: ``"en"`` or ``"zh"``."""
    return _state["language"]


def _(message: str) -> str:
    """``message`` in the current language (unchanged in English, or when it has no translation)."""
    return _state["catalogue"].gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message that fits the count ``n``, in the current language."""
    return _state["catalogue"].ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, where the same English words mean something else elsewhere:
    ``context`` tells the two apart (``pgettext("legend", "training")``: the training points, not the process)."""
    return _state["catalogue"].pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it now (a constant, translated where it is shown)."""
    return message


if os.environ.get(ENVIRONMENT):
    set_language(_normalise(os.environ[ENVIRONMENT], ENVIRONMENT))
