"""一堂课在真的 JupyterHub 上：学生点 nbgitpuller 链接打开一章、运行它；老师中途更新课程，学生的作业不丢；
学生之间互相看不到；空闲的服务器会被回收。

hub 只在 127.0.0.1 上监听（随机端口、随机密码和令牌），课程远端是本地的一个 git 仓库，全程不联网。
缺 jupyterhub、nbgitpuller、configurable-http-proxy、git 或 Chromium 时：本地跳过并说明怎么装；
CI 里（NLPBOOK_REQUIRE_BROWSER=1）直接失败。无论测试成败，hub、学生服务器和内核都会被停掉（见 tests/_hub.py）。
"""
from __future__ import annotations

import copy
import importlib.util
import os
import time
from pathlib import Path

import nbformat
import pytest

import _hub

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "nlp-from-scratch"         # 远端仓库的名字 = 学生家目录里的文件夹名
CHAPTER = "04-learning.ipynb"


def _require(reason: str | None):
    if reason is None:
        return
    if os.environ.get("NLPBOOK_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """(hub, 远端路径, 老师的工作副本)。模块结束时确认 hub 和所有学生进程都已停掉、没有留下任何进程。"""
    _require(_hub.missing())
    base = tmp_path_factory.mktemp("class")
    remote = base / FOLDER
    teacher = _hub.make_remote(remote)
    with _hub.running_hub(base / "hub") as hub:
        yield hub, remote, teacher
    left = _hub.marked_pids(hub.mark)
    assert not left, f"hub 停掉之后还有进程没退出：{left}"


def _links_module():
    spec = importlib.util.spec_from_file_location("nbgitpuller_links", ROOT / "scripts" / "nbgitpuller_links.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _student_nb(hub, user, token, name):
    status, model = hub.contents(user, token, f"{FOLDER}/notebooks/{name}")
    assert status == 200, f"读不到 {name}：{status} {model}"
    return nbformat.from_dict(model["content"])


def _save_nb(hub, user, token, name, nb):
    status, out = hub.contents(user, token, f"{FOLDER}/notebooks/{name}", "PUT",
                               {"type": "notebook", "format": "json", "content": nb})
    assert status in (200, 201), f"保存 {name} 失败：{status} {out}"


def _teacher_commit(teacher: Path, message: str, edit) -> None:
    edit(teacher)
    _hub.git(teacher, "add", "-A")
    _hub.git(teacher, "commit", "-q", "-m", message)
    _hub.git(teacher, "push", "-q", "origin", "main")


def _set_source(path: Path, index: int, text: str) -> None:
    nb = nbformat.read(path, as_version=4)
    nb.cells[index].source = text
    nbformat.write(nb, path)


def _stub_index(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nlpbook", {}).get("role") == "stub")


def test_links_point_at_the_chapter(course):
    hub, remote, _ = course
    links = dict((name, url) for name, _, url in
                 [(n, t, _links_module().link(hub.base, n, str(remote))) for n, t in _links_module().chapters()])
    url = links[CHAPTER]
    assert url.startswith(hub.base + "/hub/user-redirect/git-pull?")
    assert f"lab%2Ftree%2F{FOLDER}%2Fnotebooks%2F{CHAPTER}" in url


def test_update_keeps_student_work(course):
    """nbgitpuller 的合并规则，按 docs/teaching.md 第四节的五条逐条实测。"""
    hub, remote, teacher = course
    user = "carol"
    token = hub.user_token(user)
    hub.start_server(user)
    hub.git_pull(user, token, str(remote))
    home = hub.home(user) / FOLDER / "notebooks"
    assert (home / CHAPTER).exists() and (home / "05-ngrams.ipynb").exists()

    # 学生：做第 4 章的第一道练习、在一个说明单元末尾记笔记；删掉第 5 章；自己新建一个文件
    nb = _student_nb(hub, user, token, CHAPTER)
    stub = _stub_index(nb)
    nb.cells[stub].source = "answer_1 = 0.5   # 学生的答案"
    same_cell = 2                                        # “4.1 只看一个词”：老师和学生都会改这一格
    nb.cells[same_cell].source = nb.cells[same_cell].source + "\n\n学生的笔记：这里的 w 从 0 开始。"
    _save_nb(hub, user, token, CHAPTER, nb)
    assert hub.contents(user, token, f"{FOLDER}/notebooks/05-ngrams.ipynb", "DELETE")[0] == 204
    mine = copy.deepcopy(nb)
    mine.cells = mine.cells[:1]
    _save_nb(hub, user, token, "my-notes.ipynb", mine)

    # 老师：改第 6 章、新加一个文件、改第 4 章的另一格和学生改过的那一格、也新加一个与学生同名的文件
    original = nbformat.read(teacher / "notebooks" / CHAPTER, as_version=4)
    far = len(original.cells) - 1                        # 最后一格（取舍），离学生改的地方很远
    assert far > stub + 5

    def edit(repo: Path):
        _set_source(repo / "notebooks" / "06-word-vectors.ipynb", 0,
                    nbformat.read(repo / "notebooks" / "06-word-vectors.ipynb", as_version=4).cells[0].source
                    + "\n\n（老师更新：第 6 章）")
        (repo / "notebooks" / "NEW.md").write_text("老师新加的说明\n", encoding="utf-8")
        _set_source(repo / "notebooks" / CHAPTER, far, original.cells[far].source + "\n\n（老师更新：取舍）")
        _set_source(repo / "notebooks" / CHAPTER, same_cell, original.cells[same_cell].source + "\n\n（老师更新：4.1）")
        nbformat.write(mine, repo / "notebooks" / "my-notes.ipynb")
        (repo / "notebooks" / "my-notes.ipynb").write_text(
            (repo / "notebooks" / "my-notes.ipynb").read_text(encoding="utf-8").replace("第 4 章", "老师的第 4 章"),
            encoding="utf-8")
    _teacher_commit(teacher, "update chapters 04 and 06, add NEW.md", edit)

    hub.git_pull(user, token, str(remote))
    after = _student_nb(hub, user, token, CHAPTER)
    # 1. 老师改了、学生没改的文件：学生拿到新版本；新文件也到了
    assert "（老师更新：第 6 章）" in _student_nb(hub, user, token, "06-word-vectors.ipynb").cells[0].source
    assert (home / "NEW.md").read_text(encoding="utf-8") == "老师新加的说明\n"
    # 2. 同一个文件的不同地方：两边的改动合在一起
    assert after.cells[stub].source == "answer_1 = 0.5   # 学生的答案"
    assert after.cells[far].source.endswith("（老师更新：取舍）")
    # 3. 同一处：保留学生的版本
    assert after.cells[same_cell].source.endswith("学生的笔记：这里的 w 从 0 开始。")
    assert "（老师更新：4.1）" not in after.cells[same_cell].source
    # 4. 学生删掉的文件：恢复成仓库里的版本
    assert (home / "05-ngrams.ipynb").exists()
    # 5. 学生新建的文件与老师新加的文件同名：学生的文件改名保留，老师的文件用原名
    kept = [p for p in home.glob("my-notes*.ipynb") if p.name != "my-notes.ipynb"]
    assert len(kept) == 1, sorted(p.name for p in home.iterdir())
    assert "老师的第 4 章" not in kept[0].read_text(encoding="utf-8")
    assert "老师的第 4 章" in (home / "my-notes.ipynb").read_text(encoding="utf-8")
    hub.stop_server(user)


def test_students_are_isolated(course):
    hub, remote, _ = course
    tokens = {u: hub.user_token(u) for u in ("dora", "erik")}
    for u in tokens:
        hub.start_server(u)
    ok, _ = hub.contents("dora", tokens["dora"], "")
    assert ok == 200
    # 另一个学生的服务器和文件：403
    assert hub.contents("erik", tokens["dora"], "")[0] == 403
    assert hub.request("/user/erik/api/kernels", token=tokens["dora"])[0] == 403
    # hub 的管理 API：没有令牌 403，学生的令牌也看不到别人
    assert hub.request("/hub/api/users")[0] == 403
    assert hub.request("/hub/api/users", token=tokens["dora"])[0] == 403
    assert hub.request("/hub/api/users/erik", token=tokens["dora"])[0] in (403, 404)
    # 只在 127.0.0.1 上监听：hub、代理、每个学生服务器
    addresses = _hub.listening_addresses(_hub.marked_pids(hub.mark) + [hub.proc.pid])
    assert len(addresses) >= 5, addresses          # hub、hub API、代理 API、两个学生服务器
    assert {a for a, _ in addresses} == {"127.0.0.1"}, addresses
    for u in tokens:
        hub.stop_server(u)


def test_idle_server_is_culled(tmp_path):
    """jupyterhub-idle-culler 作为 hub 的服务（与 docs/hub 里的设置相同的权限）：空闲的学生服务器被停掉。"""
    _require(_hub.missing())
    pytest.importorskip("jupyterhub_idle_culler")
    with _hub.running_hub(tmp_path / "hub", culler_timeout=20) as hub:
        hub.user_token("idle")
        hub.start_server("idle")
        t0 = time.monotonic()
        while hub.admin("/users/idle").get("servers") and time.monotonic() - t0 < 180:
            time.sleep(2)
        assert not hub.admin("/users/idle").get("servers"), "空闲 180 秒后服务器还在"
    assert not _hub.marked_pids(hub.mark)


def test_student_opens_a_chapter_by_its_link_and_runs_it(course):
    """像学生一样：在 Chromium 里点第 4 章的链接 → hub 登录 → 服务器启动、nbgitpuller 拉课程 → JupyterLab 打开这一章；
    清掉保存的输出后运行全部：没有错误和 stderr（缺中文字体时 matplotlib 的缺字警告会出现在 stderr），
    控件都渲染出来，拖动学习率滑块后面板的显示跟着变。"""
    import test_browser as tb
    if not tb.CHROMIUM:
        _require("没有 Chromium：Debian/Ubuntu 上 sudo apt-get install chromium")
    pytest.importorskip("playwright.sync_api") if os.environ.get("NLPBOOK_REQUIRE_BROWSER") != "1" else None
    from playwright.sync_api import expect, sync_playwright
    hub, remote, _ = course
    url = _links_module().link(hub.base, CHAPTER, str(remote))
    stored = nbformat.read(ROOT / "notebooks" / CHAPTER, as_version=4)
    views = sum(tb.WIDGET_MIME in o.get("data", {}) for c in stored.cells if c.cell_type == "code" for o in c.outputs)
    pngs = sum("image/png" in o.get("data", {}) for c in stored.cells if c.cell_type == "code" for o in c.outputs)
    trace = tb.Trace(f"hub:{CHAPTER}")
    expect.set_options(timeout=120_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 2000})
        page.set_default_timeout(120_000)
        try:
            page.goto(url)
            page.fill("input[name=username]", "alice")
            page.fill("input[name=password]", hub.password)
            page.click("input[type=submit], button[type=submit]")
            trace.log("登录")
            # 服务器启动 → git-pull 页面 → JupyterLab 打开这一章
            page.wait_for_url(f"**/user/alice/lab/tree/{FOLDER}/notebooks/{CHAPTER}*", timeout=300_000)
            expect(page.locator(".lm-TabBar-tab.jp-mod-current", has_text=CHAPTER).first).to_be_visible()
            trace.log("JupyterLab 打开了这一章")
            nb = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
            expect(nb.locator(".jp-Cell").first).to_be_visible()
            tb._wait(page, trace, lambda st: st["kernel"] not in ("", "No Kernel") and st["status"] == "idle",
                     tb.KERNEL_TIMEOUT, "内核没有就绪")
            tb.clear_all_outputs(page, nb, trace)
            nb = tb.run_all_open(page, CHAPTER, trace)
            errors = nb.locator(".jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")
            assert errors.count() == 0, "错误或 stderr 输出：" + " | ".join(errors.all_text_contents())[:3000]
            expect(nb.locator(tb.VIEWS)).to_have_count(views)
            assert nb.locator(".jp-RenderedImage img").count() == pngs > 0
            for step in tb.PANELS[CHAPTER]:
                tb._drive(page, nb, step, trace)
            assert (hub.home("alice") / FOLDER / "notebooks" / CHAPTER).exists()
        except Exception:
            tb.ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(tb.ARTIFACTS / "hub-04.png"), full_page=True)
            print("\n".join(trace.events))
            raise
        finally:
            browser.close()
