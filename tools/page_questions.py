"""The exercises of the static pages: questions answered in the page, with the notebook's own feedback.

An exercise whose answer is a choice, a number, a word or a list of positions is answerable in its page: the
reader picks or types, and the page shows the feedback the notebook's check gives for that answer (the
diagnosis and the question first, the hint and the fix behind a click). The page computes nothing: at build time,
in the notebook's own kernel after its last cell (so in its language, with its data), :func:`publish_questions`
calls each such check on every answer the page can take (each option or set of options; for a number, the
values :data:`QUESTIONS` lists: the right ones, the check's catalogued wrong ones and a grid) and hands over the
verdicts (``Feedback.record``); the page embeds them as JSON and ``page_questions.js`` looks the reader's answer
up. A typed number that is none of those values gets the verdict of the nearest one, and the page says so. A
code exercise says in the page what to write and where to run it.

:data:`QUESTIONS` says, per check (by its name) and per argument, what kind of answer the page asks for; the
exercise cells (tagged ``exercise``, ending with the call of their check) are found in the notebook, so a
notebook renumbered or a message reworded needs nothing here. :func:`question_html` renders one question's
block, :data:`SCRIPT` and :data:`STYLE` are the shared front end (``install`` adds them to a page): the decks
can show the same block.
"""

from __future__ import annotations

import ast
import html
import itertools
import json
import math
from pathlib import Path

__all__ = [
    "MIME",
    "QUESTIONS",
    "SCRIPT",
    "SCRIPT_NAME",
    "STYLE",
    "after_code",
    "exercise_calls",
    "publish_questions",
    "evaluate",
    "question_html",
    "code_note_html",
    "questions_of",
    "install",
    "copy_script",
]

MIME = "application/vnd.attention-lab.questions+json"
SCRIPT = Path(__file__).with_name("page_questions.js")
SCRIPT_NAME = "page_questions.js"
_MAX_ANSWERS = 2000  # answers evaluated for one question; beyond, each argument alone (``fields``)


def _log_grid(low: float, high: float, per_decade: int) -> list[float]:
    """Numbers from ``low`` to ``high``, evenly spaced in log, rounded to 3 significant digits."""
    count = round(math.log10(high / low) * per_decade)
    return sorted({float(f"{low * 10 ** (i / per_decade):.3g}") for i in range(count + 1)})


def choice(options=None, *, several=False, from_argument=None):
    """A choice among ``options`` (or the keys / items of the check's argument ``from_argument``)."""
    return {"kind": "choice", "options": options, "several": several, "from": from_argument}


def number(probes, *, tolerance=1e-9, relative=0.0, integer=False):
    """A typed number: the check is called on each of ``probes``; the reader's number takes the verdict of a probe
    within ``tolerance`` (+ ``relative`` times its size), else of the nearest wrong probe (the page says so)."""
    return {"kind": "number", "probes": [float(p) for p in probes], "tolerance": tolerance, "relative": relative,
            "integer": integer}  # fmt: skip


def positions(n):
    """A set of positions 0..n-1 (checkboxes)."""
    return {"kind": "positions", "n": n}


SOLUTION = {"kind": "solution"}  # not asked: the page calls the check with the course's reference answer
LEFT = {"kind": "left"}  # not asked: left as ``...`` (the check then says what to do in the notebook)

# per check (its name in the notebook) and argument (the check's parameter): what the page asks for
_GRID = [-1.0, 0.0, *_log_grid(0.01, 1e6, 10)]
QUESTIONS = {
    "check_uniform_temperature": {"temperature": number([math.inf, *_GRID])},
    "check_reachable_outputs": {"reachable": choice(several=True, from_argument="candidates")},
    "check_dot_product_winner": {"label": choice(from_argument="labels")},
    "check_temperature_for_weight": {"temperature": number(_log_grid(0.01, 100, 100), relative=0.012)},
    "check_smooth_max_gap": {
        "bound": number(
            [0.5 * math.log(6), math.log(6), 0.5 * math.log(5), math.log(5), 2 * math.log(6), 0, 0.5, 1, 2, 5],
            tolerance=1e-6,
        ),  # fmt: skip
        # in the page, a choice among score lists (typed scores would need the check's own arithmetic)
        "scores": choice([[0, 1, 2, 3, 4, 5], [10, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [3, 3, 3, 3, 3, 0]]),
    },
    "check_bandwidth_rate": {
        "h_exponent": number([-0.2, 0.2, -1 / 3, -0.25, -1, 5, -5, 0, -0.5, -0.8], tolerance=1e-3),
        "error_exponent": number([-0.8, -1, 0.8, -0.4, -0.2, 0, -0.5, 0.2, -2], tolerance=1e-3),
    },
    "check_noise_prediction": {"prediction": choice(["larger", "smaller", "the same"]), "h_noisy": LEFT},
    "check_w_symmetry": {
        "same_as_w2": number([-2, 2, 0, 1, -1, 0.5, -0.5, 4, -4, 3, -3]),
        "start_at_zero": choice(["a", "b", "c", "d"]),
    },
    "check_no_loo_prediction": {"answer": choice(["a", "b", "c"])},
    "check_sgd_settings": {  # the course's own answer (solutions/) is one of the values
        "learning_rate": number(_log_grid(0.01, 1000, 4), relative=1e-3),
        "epochs": number([1, 2, 5, 10, 20, 30, 40, 50], integer=True),
    },
    "check_laplace_prediction": {"answer": choice(["a", "b", "c", "d"])},
    "check_unscaled_entropy": {
        "prediction": number([x / 50 for x in range(151)] + [-1, 5], tolerance=0.01),
        "fn": SOLUTION,
    },  # fmt: skip
    "check_uniform_attention_prediction": {"answer": choice(["A", "B", "C"])},
    "check_forward_encoder_prediction": {"answer": choice(["A", "B", "C", "D"])},
    "check_causal_influence": {
        "two_causal_layers": positions(6),
        "one_window_layer": positions(6),
        "two_window_layers": positions(6),
    },
    "check_tempting_reshape": {"positions_in_head_0": positions(4)},
    "check_no_position_prediction": {
        "prediction": number([x / 100 for x in range(101)] + [30, -1], tolerance=0.005)
    },  # fmt: skip
    "check_cross_attention_cache": {"answer": choice(["A", "B", "C", "D"])},
}

# the page's own words (the feedback itself comes from the checks, in the kernel's language)
WORDS = {
    "en": {
        "check": "Check my answer",
        "nearest": "The page holds the check's feedback for some values only; here is its feedback for {value}, "
        "the nearest to yours. Run the notebook for your exact value.",
        "unreadable": "Write a number, such as 0.5, 1/2, log(6)/2 or inf.",
        "choose": "Choose an answer first.",
        "legend": "Your answer",
        "position": "position {p}",
        "answer": "Answer here, in the page (nothing is sent anywhere):",
        "code": "This exercise is code: write it in the notebook's exercise cell above (replace the `...`) and run "
        "the cell; the check under it answers. Run the notebook in Colab or Binder (in the cloud, nothing to "
        "install) or download it and run it locally:",
        "launch": {"colab": "Open in Colab", "binder": "Launch on Binder", "download": "Download the notebook"},
    },
    "zh": {
        "check": "检查我的答案",
        "nearest": "本页只存有检查函数对部分数值的反馈；下面是对最接近你答案的 {value} 的反馈。"
        "要检查你的确切数值，请运行笔记本。",
        "unreadable": "请写一个数，例如 0.5、1/2、log(6)/2 或 inf。",
        "choose": "请先选择一个答案。",
        "legend": "你的答案",
        "position": "位置 {p}",
        "answer": "在本页作答（不会发送任何内容）：",
        "code": "这道练习要写代码：在上面笔记本的练习单元格里写（替换 `...`）并运行该单元格，它下面的检查会给出反馈。"
        "可在 Colab 或 Binder 中运行笔记本（在云端，无需安装），或下载后在本地运行：",
        "launch": {"colab": "在 Colab 中打开", "binder": "在 Binder 上启动", "download": "下载本笔记本"},
    },
}


def exercise_calls(nb) -> list[dict]:
    """Each exercise cell of ``nb`` (a notebook as a dict or node): its id, source, the check it calls last
    (``check_*``) and the call's arguments as source text, positional and by keyword."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.get("cell_type") != "code" or "exercise" not in tags:
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        last = tree.body[-1] if tree.body else None
        call = last.value if isinstance(last, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        found.append({
            "index": index,
            "id": cell.get("id", f"cell-{index}"),
            "source": source,
            "check": call.func.id,
            "args": [ast.unparse(a) for a in call.args],
            "keywords": {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg},
            "defines": [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)],
        })  # fmt: skip
    return found


def _parameters(check) -> list[str]:
    import inspect

    names = list(inspect.signature(check).parameters)
    return names[1:]  # the first is the exercise's title, filled in by ``exercise``


def _bind(check, call) -> dict:
    """{parameter: argument source} of one exercise call."""
    names = _parameters(check)
    bound = dict(zip(names, call["args"], strict=False))
    bound.update(call["keywords"])
    return bound


def _space(spec, argument_value):
    """[(page key, value passed to the check)] of one asked argument."""
    kind = spec["kind"]
    if kind == "choice":
        options = spec["options"]
        if options is None:
            options = [str(x) for x in argument_value]
        if spec["several"]:
            subsets = [c for r in range(1, len(options) + 1) for c in itertools.combinations(options, r)]
            return [("".join(c), "".join(c)) for c in subsets], options
        if any(isinstance(o, list) for o in options):  # a choice among lists (of numbers): shown as written
            return [(_list_text(o), list(o)) for o in options], [_list_text(o) for o in options]
        return [(o, o) for o in options], options
    if kind == "number":
        probes = spec["probes"]
        return [(repr(p), int(p) if spec["integer"] else p) for p in probes], [repr(p) for p in probes]
    if kind == "positions":
        subsets = [c for r in range(spec["n"] + 1) for c in itertools.combinations(range(spec["n"]), r)]
        return [(",".join(map(str, c)), list(c)) for c in subsets], list(range(spec["n"]))
    raise ValueError(f"spec kind must be choice, number or positions, got {kind!r}")


def evaluate(check, call, namespace, solution=None) -> dict:
    """The question of one exercise ``call`` (from :func:`exercise_calls`): its asked arguments and the check's
    verdict (``Feedback.record(html=True)``) on every answer the page can take, in ``namespace`` (the notebook's).

    The cell is run again with the asked arguments' variables set to each answer (so the rest of the call is the
    notebook's own). ``solution``: a module holding the course's reference answers (for ``SOLUTION`` arguments).
    """
    spec = QUESTIONS[call["check"]]
    bound = _bind(check, call)
    tree = ast.parse(call["source"])
    body, last = tree.body[:-1], tree.body[-1]
    variables = {p: bound[p] for p in spec if p in bound}
    asked = [p for p in spec if spec[p]["kind"] not in ("solution", "left")]

    def run(values: dict):
        ns = dict(namespace)
        ns["__page_answers__"] = values
        module = ast.Module(body=[_with_answers(node, variables, values) for node in body], type_ignores=[])
        with _silent():
            exec(compile(ast.fix_missing_locations(module), "<exercise>", "exec"), ns)  # noqa: S102 - the course's own cell
            for parameter, kind in ((p, spec[p]["kind"]) for p in spec):
                name = variables.get(parameter)
                if kind == "solution" and name is not None and solution is not None:
                    ns[name] = getattr(solution, name)
            result = eval(compile(ast.Expression(last.value), "<exercise>", "eval"), ns)  # noqa: S307
        return result.record(html=True)

    spaces, shown = {}, {}
    for parameter in asked:
        spec = {**QUESTIONS[call["check"]]}
        answer = getattr(solution, str(variables.get(parameter, "")).upper(), None) if solution is not None else None
        if spec[parameter]["kind"] == "number" and isinstance(answer, int | float) and not isinstance(answer, bool):
            probes = spec[parameter]["probes"]  # the course's own answer first, then the catalogued values
            spec[parameter] = {**spec[parameter], "probes": [float(answer), *(p for p in probes if p != answer)]}
        argument = None
        source = spec[parameter].get("from")
        if source is not None:
            argument = eval(bound[source], dict(namespace))  # noqa: S307 - the notebook's own argument
        spaces[parameter], shown[parameter] = _space(spec[parameter], argument)
    spec = QUESTIONS[call["check"]]
    fields = [
        {
            "name": p,
            "variable": variables.get(p, p),
            **_public(spec[p]),
            "options": shown[p],
            "keys": [k for k, _ in spaces[p]],
        }
        for p in asked
    ]
    left = {p: ... for p in spec if spec[p]["kind"] == "left"}
    total = math.prod(len(spaces[p]) for p in asked)
    question = {"check": call["check"], "cell": call["id"], "fields": fields}
    if total <= _MAX_ANSWERS:
        answers = {}
        for combo in itertools.product(*(spaces[p] for p in asked)):
            values = {**left, **{p: v for p, (_, v) in zip(asked, combo, strict=True)}}
            answers[_key([k for k, _ in combo])] = run(values)
        question.update(mode="table", answers=answers)
        return question
    # each argument alone, the others right: the check's messages are one list per argument, in order
    right = {}
    for p in asked:
        others = {q: spaces[q][0][1] for q in asked if q != p}
        verdicts = [(key, run({**left, **others, p: value})) for key, value in spaces[p]]
        fewest = min(verdicts, key=lambda kv: len(kv[1]["messages"]))
        right[p] = next(v for k, v in spaces[p] if k == fewest[0])
    per_field = {}
    for p in asked:
        others = {q: right[q] for q in asked if q != p}
        per_field[p] = {key: run({**left, **others, p: value}) for key, value in spaces[p]}
    question.update(mode="fields", answers=per_field)
    return question


def _list_text(values) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def _key(keys: list) -> str:
    """The key of one answer in the page's table: its arguments' keys as JSON (as the page's JSON.stringify)."""
    return json.dumps(keys, separators=(",", ":"), ensure_ascii=False)


def _public(spec) -> dict:
    return {k: v for k, v in spec.items() if k in ("kind", "several", "tolerance", "relative", "integer", "n")}


def _with_answers(node, variables: dict, values: dict):
    """``node`` with each ``variable = ...`` of an asked argument set to the page's answer instead."""
    names = {variables[p]: p for p in values if p in variables}
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        parameter = names.get(node.targets[0].id)
        if parameter is not None:
            value = ast.Subscript(ast.Name("__page_answers__", ast.Load()), ast.Constant(parameter), ast.Load())
            return ast.copy_location(ast.Assign(node.targets, value), node)
    return node


class _silent:
    """No output from the cell run again (its prints and figures are the notebook's, already shown)."""

    def __enter__(self):
        import contextlib
        import io

        self._stack = contextlib.ExitStack()
        self._stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        self._stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        try:
            import matplotlib.pyplot as plt

            self._figures = set(plt.get_fignums())
        except ImportError:  # pragma: no cover - matplotlib is a dependency
            self._figures = None
        return self

    def __exit__(self, *exc):
        if self._figures is not None:
            import matplotlib.pyplot as plt

            for number in set(plt.get_fignums()) - self._figures:
                plt.close(number)
        self._stack.close()
        return False


def _solution_module(check):
    """The course's reference answers for the notebook of ``check`` (``solutions/notebook_NN.py``), or None."""
    import importlib.util

    from attention_lab.paths import repo_root

    stem = check.__module__.rsplit(".", 1)[-1]
    path = repo_root(Path(__file__).parent) / "solutions" / f"{stem}.py"
    if not path.is_file():
        return None
    module_spec = importlib.util.spec_from_file_location(f"_solutions_{stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def publish_questions(notebook: str, namespace: dict | None = None):
    """In a notebook's kernel after its last cell: display (as :data:`MIME`) the questions of ``notebook`` (its
    path) for its page, and a note for each code exercise."""
    from IPython import get_ipython
    from IPython.display import display

    from attention_lab.i18n import _, get_language

    namespace = get_ipython().user_ns if namespace is None else namespace
    import time

    start = time.perf_counter()
    with open(notebook, encoding="utf-8") as file:
        nb = json.load(file)
    questions = []
    for call in exercise_calls(nb):
        check = namespace.get(call["check"])
        if check is None:
            import attention_lab.exercises as exercises

            check = getattr(exercises, call["check"], None)
        if check is None:
            continue
        if call["check"] not in QUESTIONS:
            questions.append({"check": call["check"], "cell": call["id"], "mode": "code"})
            continue
        questions.append(evaluate(check, call, namespace, _solution_module(check)))
    words = {"hint": _("A further hint"), "fix": _("The fix")}
    seconds = time.perf_counter() - start
    display({MIME: {"language": get_language(), "questions": questions, "words": words, "seconds": seconds}}, raw=True)


def after_code(notebook) -> str:
    """The code ``build_site`` runs in a notebook's kernel after its last cell for the page's questions."""
    return (
        "from tools import page_questions as _questions\n"
        f"_questions.publish_questions({str(Path(notebook).resolve())!r})\ndel _questions\n"
    )


def questions_of(after_outputs: list) -> dict | None:
    """The payload of :func:`publish_questions` among the outputs of the code run after the notebook."""
    for output in after_outputs:
        payload = output.get("data", {}).get(MIME)
        if payload is not None:
            return payload
    return None


def _text(words: str) -> str:
    """The page's words with `code` spans."""
    import re

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(words, quote=False))


def question_html(question: dict, uid: str, lang: str = "en", *, words: dict | None = None) -> str:
    """One question's block: its inputs (labelled), the button, the feedback region, and its verdicts as JSON.

    The block works wherever :data:`SCRIPT` is loaded (a page, a deck): ``install`` adds it to a page."""
    page = WORDS["zh" if lang == "zh" else "en"]
    data = {"q": question, "words": {**page, **(words or {})}}
    inputs = []
    for i, field in enumerate(question["fields"]):
        fid = f"{uid}-f{i}"
        legend = f"<code>{html.escape(field['variable'])}</code>"
        kind = field["kind"]
        if kind in ("choice", "positions"):
            several = kind == "positions" or field.get("several")
            kind_attr = "checkbox" if several else "radio"
            items = "".join(
                f'<label class="pq-option"><input type="{kind_attr}" name="{fid}" value="{html.escape(str(o))}">'
                f"<span>{html.escape(page['position'].format(p=o) if kind == 'positions' else str(o))}</span></label>"
                for o in field["options"]
            )
            inputs.append(f'<fieldset class="pq-field" data-field="{i}"><legend>{legend}</legend>{items}</fieldset>')
        else:
            mode = "text"  # a formula such as log(6)/2 needs letters
            inputs.append(
                f'<div class="pq-field" data-field="{i}"><label for="{fid}">{legend}</label> '
                f'<input id="{fid}" type="text" inputmode="{mode}" autocomplete="off" spellcheck="false"></div>'
            )
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    return (
        f'<form class="page-question" id="{uid}" novalidate><p class="pq-intro">{html.escape(page["answer"])}</p>'
        f"{''.join(inputs)}"
        f'<button type="submit" class="pq-check">{html.escape(page["check"])}</button>'
        f'<div class="pq-feedback" role="status" aria-live="polite" tabindex="-1"></div>'
        f'<script type="application/json" class="pq-data">{payload}</script></form>'
    )


def code_note_html(name: str, lang: str = "en") -> str:
    """What a code exercise asks the page's reader to do, and where to run it (the notebook's launch links)."""
    from tools import launch_buttons

    page = WORDS["zh" if lang == "zh" else "en"]
    links = " · ".join(
        f'<a href="{html.escape(url)}">{html.escape(page["launch"][kind])}</a>'
        for kind, url in launch_buttons.links(name, lang).items()
    )
    return f'<div class="page-question pq-code"><p>{_text(page["code"])} {links}</p></div>'


STYLE = """<style id="page-questions">
.page-question {border: 1px solid #888; border-left: 4px solid #005A8C; border-radius: 4px; padding: .5rem .8rem;
  margin: .6rem 0; max-width: 48rem; background: #fff; color: #1a1a1a}
.page-question .pq-intro {margin: 0 0 .4rem; font-weight: 600}
.page-question fieldset {border: 0; margin: 0 0 .4rem; padding: 0}
.page-question legend, .page-question .pq-field > label {font-weight: 600; margin-bottom: .2rem}
.pq-option {display: inline-flex; align-items: center; gap: .35rem; margin: .15rem 1rem .15rem 0; min-height: 44px;
  min-width: 44px}
.pq-option input {width: 1.2rem; height: 1.2rem}
.pq-field input[type=text] {font-size: 1rem; padding: .35rem .5rem; min-height: 44px; box-sizing: border-box;
  width: 16rem; max-width: 100%; border: 1px solid #555; border-radius: 3px}
.pq-check {font-size: 1rem; min-height: 44px; padding: .3rem 1rem; margin: .3rem 0; border-radius: 4px;
  border: 0; background: #005A8C; color: #fff; font-weight: 600; cursor: pointer}
.pq-check:hover {background: #00466E}
.pq-feedback:empty {display: none}
.pq-feedback {margin-top: .4rem; padding: .4rem .6rem; background: #f6f6f6; border-radius: 3px;
  overflow-wrap: anywhere}
.pq-feedback:focus {outline: 3px solid #B35900; outline-offset: 2px}
.pq-feedback .pq-note {font-style: italic; color: #333}
.pq-feedback pre {white-space: pre-wrap}
.pq-feedback details summary {cursor: pointer; min-height: 32px}
.page-question.pq-code {border-left-color: #666}
</style>
"""


def install(page: str, up: str = "") -> str:
    """Add the style and the script to a page that shows questions (unchanged otherwise); ``up``: the path from the
    page to the script's folder (the site's pages leave it to ``site_kit.finish_page``)."""
    if 'class="page-question' not in page:
        return page
    return page.replace("</head>", STYLE + f'<script src="{up}{SCRIPT_NAME}" defer></script>\n</head>', 1)


def copy_script(outdir: Path) -> None:
    import shutil

    shutil.copyfile(SCRIPT, Path(outdir) / SCRIPT_NAME)
