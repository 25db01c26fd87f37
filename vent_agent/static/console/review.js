// review.js — plan review: drop a PDF (POST /api/vent/review/pdf), a progress bar per page (text layer
// and OCR), the reviewers' state, the findings (GET /api/reports/{id}/provenance) with severity filters,
// each finding's trace (…/findings/{n}/trace) and the Word report.

import { api, banner, el, openStream } from './api.js';

const SEVERITY = { critical: '严重', major: '重大', minor: '一般', info: '提示' };
const CATEGORY = { form: '形式', data: '数据', calculation: '计算', units: '单位', regulation: '规程' };
const REVIEWERS = { 'form-reviewer': '基本形式审查', 'data-checker': '数据一致性审查', 'calc-verifier': '计算核验审查' };
const LINK_KIND = { pdf: 'PDF 原文', calc: '计算', reference: '参考数据', clause: '规程条款' };
const LINK_STATUS = { ok: '已核实', broken: '断链', unverifiable: '无法核实' };

/** A bar of one cell per page: cells up to `page` are lit. */
function pageBar(label) {
  const cells = el('div', { class: 'pages' });
  const text = el('span', { class: 'muted' });
  const root = el('div', { class: 'pagebar' }, el('span', { class: 'lbl' }, label), cells, text);
  return {
    root,
    set({ page, total }) {
      if (cells.childElementCount !== total) cells.replaceChildren(...Array.from({ length: total }, (_, i) => el('i', { title: `第 ${i + 1} 页` })));
      [...cells.children].forEach((c, i) => c.classList.toggle('on', i < page));
      text.textContent = `${page}/${total} 页`;
    },
  };
}

function traceView(trace) {
  const detail = (l) => {
    const d = l.detail || {};
    const parts = [];
    if (d.cells) parts.push(el('div', {}, '该行：', el('code', {}, d.cells.map((c) => String(c).replace(/\n/g, '')).join(' | '))));
    if (d.text) parts.push(el('div', {}, '原文：', el('q', {}, d.text)));
    if (d.inputs) parts.push(el('div', {}, '输入：', el('code', {}, JSON.stringify(d.inputs))));
    if (d.value !== undefined && l.kind === 'calc') parts.push(el('div', {}, '结果：', el('code', {}, JSON.stringify(d.value))));
    if (d.steps) parts.push(el('div', {}, '过程：', el('code', {}, JSON.stringify(d.steps))));
    return parts;
  };
  return el('div', { class: 'trace' },
    el('p', {}, `溯源：${{ complete: '完整', broken: '有断链', partial: '部分无法核实' }[trace.status] || trace.status}`),
    el('ol', {}, ...trace.links.map((l) => el('li', { class: l.status },
      el('strong', {}, `${LINK_KIND[l.kind] || l.kind}`), ` ${l.what} `,
      el('span', { class: `tag ${l.status}` }, LINK_STATUS[l.status] || l.status),
      l.reason ? el('span', { class: 'muted' }, `（${l.reason}）`) : null, ...detail(l)))));
}

function findingsTable(record, root) {
  const findings = record.findings || [];
  const shown = new Set(Object.keys(SEVERITY));
  const counts = Object.fromEntries(Object.keys(SEVERITY).map((s) => [s, findings.filter((f) => f.severity === s).length]));
  const body = el('tbody');
  const render = () => {
    body.replaceChildren();
    for (const f of findings) {
      if (!shown.has(f.severity)) continue;
      const row = el('tr', { class: `sev-${f.severity}`, 'data-index': f.index },
        el('td', {}, String(f.index)),
        el('td', {}, el('span', { class: `sev ${f.severity}` }, SEVERITY[f.severity] || f.severity)),
        el('td', {}, CATEGORY[f.category] || f.category),
        el('td', {}, f.location || '全局'),
        el('td', {}, f.message),
        el('td', {}, f.page ? `第 ${f.page} 页` : '—'),
        el('td', { class: 'muted' }, f.source || ''),
        el('td', {}, el('button', { type: 'button', class: 'icon trace-btn', onclick: () => toggleTrace(f, row) }, '溯源')));
      body.append(row);
    }
  };
  const toggleTrace = async (f, row) => {
    const next = row.nextElementSibling;
    if (next?.classList.contains('trace-row')) return next.remove();
    const cell = el('td', { colspan: 8 }, '正在溯源…');
    row.after(el('tr', { class: 'trace-row' }, cell));
    try {
      cell.replaceChildren(traceView(await api(f.trace_url)));
    } catch (err) {
      cell.textContent = `溯源失败：${err.message}`;
    }
  };
  const filters = el('div', { class: 'filters' }, el('span', {}, '严重程度：'),
    ...Object.entries(SEVERITY).map(([k, name]) => el('label', { class: `sev-filter ${k}` },
      el('input', { type: 'checkbox', checked: true, value: k, onchange: (e) => { e.target.checked ? shown.add(k) : shown.delete(k); render(); } }),
      ` ${name}（${counts[k]}）`)));
  render();
  root.append(el('h3', {}, `审查发现（共 ${findings.length} 条）`), filters,
    el('table', { class: 'findings' },
      el('thead', {}, el('tr', {}, ...['序号', '严重程度', '类别', '地点', '问题', '页码', '依据', ''].map((h) => el('th', {}, h)))), body));
}

async function review(file) {
  banner('');
  const progress = document.getElementById('review-progress');
  const result = document.getElementById('review-result');
  const status = el('p', { class: 'status' }, `正在上传 ${file.name}…`);
  const text = pageBar('文本提取');
  const ocr = pageBar('OCR 识别');
  ocr.root.hidden = true;
  const agents = el('ul', { class: 'agents' }, ...Object.entries(REVIEWERS).map(([id, name]) => el('li', { 'data-agent': id }, `${name}：等待`)));
  progress.replaceChildren(el('h3', {}, file.name), status, text.root, ocr.root, agents);
  result.replaceChildren();
  const form = new FormData();
  form.append('file', file);
  let done = null;
  let downloadUrl = null;
  try {
    const { events } = await openStream('/api/vent/review/pdf', { body: form });
    for await (const ev of events) {
      if (ev.message && ev.type !== 'token') status.textContent = ev.message;
      if (ev.page_progress) text.set(ev.page_progress);
      if (ev.ocr_progress) {
        ocr.root.hidden = false;
        ocr.set(ev.ocr_progress);
      }
      if (ev.download_url) downloadUrl = ev.download_url;
      const li = ev.agent && agents.querySelector(`[data-agent="${ev.agent}"]`);
      if (li) li.textContent = `${REVIEWERS[ev.agent]}：${ev.type === 'agent_done' ? `完成，发现 ${ev.findings} 项（${ev.duration_ms} ms）` : ev.type === 'agent_error' ? `出错 ${ev.error}` : ev.message}`;
      if (ev.type === 'error') result.append(el('div', { class: 'error' }, ev.message));
      if (ev.type === 'done') {
        done = ev;
        break;
      }
    }
  } catch (err) {
    status.textContent = '';
    banner(`审查请求失败：${err.message}`);
    return;
  }
  if (!done || !downloadUrl) return;
  const reportId = downloadUrl.split('/').pop().replace(/\.docx$/, '');
  const s = done.summary || {};
  result.append(el('div', { class: 'summary' },
    ...Object.entries(SEVERITY).map(([k, name]) => el('span', { class: `sev ${k}` }, `${name} ${s[k] ?? 0}`)),
    el('a', { href: downloadUrl, download: '', class: 'button primary', id: 'report-link' }, '下载 Word 审查报告')));
  try {
    findingsTable(await api(`/api/reports/${reportId}/provenance`), result);
  } catch (err) {
    result.append(el('div', { class: 'error' }, `读取发现失败：${err.message}`));
  }
}

export function initReview() {
  const drop = document.getElementById('drop');
  const input = document.getElementById('pdf-input');
  const take = (files) => {
    const file = [...files].find((f) => f.type === 'application/pdf' || f.name.toLowerCase().endsWith('.pdf'));
    if (file) review(file);
    else banner('请选择 PDF 文件');
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
