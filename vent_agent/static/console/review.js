// review.js — plan review: drop a PDF (POST /api/vent/review/pdf) under a heading of its file name (a long
// one shortened in the middle, whole in the title), a progress bar per page (text layer
// and OCR), the reviewers' state (never left 等待 when the review fails), then the result
// (review_result.js: verdict, coverage, findings with consequences and traces, the Word report).

import { bannerFor, el, openStream } from './api.js';
import { showResult } from './review_result.js';

const say = bannerFor('review'); // this tab's banner

const REVIEWERS = { 'form-reviewer': '基本形式审查', 'data-checker': '数据一致性审查', 'calc-verifier': '计算核验审查' };

const NAME_CHARS = 60; // a file name in the heading: one line of the tab at 1280 px and wider
const NAME_TAIL = 16; // its last characters kept (the revision, the date, the extension)

/** A file name of at most `max` characters: a longer one keeps its start and its last `NAME_TAIL`
 * characters around an ellipsis ("示范煤矿…（修订稿）.pdf"); the full name goes in a title attribute. */
export function shortName(name, max = NAME_CHARS) {
  const chars = [...name]; // by code point: a character outside the BMP is never cut in two
  if (chars.length <= max) return name;
  const tail = Math.min(NAME_TAIL, max - 2);
  return `${chars.slice(0, max - tail - 1).join('')}…${chars.slice(-tail).join('')}`;
}

/** A status message with the file name the service sends (`file_name`, as it saved it) shortened. */
function shortenedIn(message, name) {
  return name && name !== shortName(name) ? message.split(name).join(shortName(name)) : message;
}

/** A bar of one cell per page: cells up to `page` are lit. */
function pageBar(label) {
  const cells = el('div', { class: 'pages' });
  const text = el('span', { class: 'muted' });
  const root = el('div', { class: 'pagebar' }, el('span', { class: 'lbl' }, label), cells, text);
  return {
    root,
    get started() {
      return cells.childElementCount > 0;
    },
    /** A word in place of the bar (no page was read in this run). */
    note(words) {
      text.textContent = words;
    },
    set({ page, total }) {
      if (cells.childElementCount !== total) cells.replaceChildren(...Array.from({ length: total }, (_, i) => el('i', { title: `第 ${i + 1} 页` })));
      [...cells.children].forEach((c, i) => c.classList.toggle('on', i < page));
      text.textContent = `${page}/${total} 页`;
    },
  };
}

/** The reviewers' list: each one's state as the events tell it; `settle(reason)` marks every reviewer
 * that has not finished (等待 or running) as not finished, with the reason. */
function reviewerList() {
  const finished = new Set();
  const root = el('ul', { class: 'agents' }, ...Object.entries(REVIEWERS).map(([id, name]) => el('li', { 'data-agent': id, class: 'waiting' }, `${name}：等待`)));
  const item = (id) => root.querySelector(`[data-agent="${id}"]`);
  return {
    root,
    apply(ev) {
      const li = ev.agent && item(ev.agent);
      if (!li) return;
      const name = REVIEWERS[ev.agent];
      if (ev.type === 'agent_done') {
        finished.add(ev.agent);
        li.className = 'ok';
        li.textContent = `${name}：完成，发现 ${ev.findings} 项（${ev.duration_ms} ms）`;
      } else if (ev.type === 'agent_error') {
        finished.add(ev.agent);
        li.className = 'failed';
        li.textContent = `${name}：出错 ${ev.error}`;
      } else if (ev.message) {
        li.className = 'running';
        li.textContent = `${name}：${ev.message}`;
      }
    },
    settle(reason) {
      for (const [id, name] of Object.entries(REVIEWERS)) {
        if (finished.has(id)) continue;
        item(id).className = 'failed';
        item(id).textContent = `${name}：未完成（${reason}）`;
      }
    },
  };
}

async function review(file) {
  say('');
  const progress = document.getElementById('review-progress');
  const result = document.getElementById('review-result');
  const status = el('p', { class: 'status' }, `正在上传 ${shortName(file.name)}…`);
  const text = pageBar('文本提取');
  const ocr = pageBar('OCR 识别');
  ocr.root.hidden = true;
  const agents = reviewerList();
  progress.replaceChildren(el('h3', { class: 'file-name', title: file.name }, shortName(file.name)), status, text.root, ocr.root, agents.root);
  result.replaceChildren();
  const form = new FormData();
  form.append('file', file);
  let done = null;
  let failure = null;
  let saved = null; // the file name as the service saved it (its first event's file_name)
  try {
    const { events } = await openStream('/api/vent/review/pdf', { body: form });
    for await (const ev of events) {
      saved ??= ev.file_name;
      if (ev.message && ev.type !== 'token') status.textContent = shortenedIn(ev.message, saved);
      if (ev.page_progress) text.set(ev.page_progress);
      if (ev.ocr_progress) {
        ocr.root.hidden = false;
        ocr.set(ev.ocr_progress);
      }
      agents.apply(ev);
      if (ev.type === 'error') {
        failure = ev.message;
        result.append(el('div', { class: 'error' }, ev.message));
      }
      if (ev.type === 'done') {
        done = ev;
        break;
      }
    }
  } catch (err) {
    failure = err.message;
    say(`审查请求失败：${err.message}`);
  }
  if (!done?.download_url) {
    agents.settle(failure ? '审查失败' : '审查未完成');
    status.className = 'status error';
    status.textContent = failure ? `审查失败：${failure}` : '审查未完成：连接已结束';
    return;
  }
  // a PDF already read (same file, same reader) is taken from the extraction cache: no page events
  if (!text.started) text.note('沿用此前的提取结果（同一文件已读取过）');
  await showResult(result, done);
}

export function initReview() {
  const drop = document.getElementById('drop');
  const input = document.getElementById('pdf-input');
  const take = (files) => {
    const file = [...files].find((f) => f.type === 'application/pdf' || f.name.toLowerCase().endsWith('.pdf'));
    if (file) review(file);
    else say('请选择 PDF 文件');
  };
  input.addEventListener('change', () => input.files.length && take(input.files));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    take(e.dataTransfer.files);
  });
}
