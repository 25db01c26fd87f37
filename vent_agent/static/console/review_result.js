// review_result.js — a finished review in the review tab: the verdict, the plan's month when it is out of
// date for the review's date (`done.month_note`), the severity counts and the Word report, the coverage (what the reader established: `done.coverage`), then the findings
// (GET /api/reports/{id}/provenance) with severity filters, each finding's consequences and its trace
// (…/findings/{n}/trace) with its chain in the provenance graph (graph.js).

import { api, el } from './api.js';
import { chainView } from './graph.js';
import { formulaHtml } from './md.js';

export const SEVERITY = { critical: '严重', major: '重大', minor: '一般', info: '提示' };
const CATEGORY = { form: '形式', data: '数据', calculation: '计算', units: '单位', regulation: '规程' };
const LINK_KIND = { pdf: 'PDF 原文', calc: '计算', reference: '参考数据', clause: '规程条款' };
const LINK_STATUS = { ok: '已核实', broken: '断链', unverifiable: '无法核实' };
const CONFIDENCE = { high: '可靠', low: '低置信度', none: '未读出' };
// the report's own verdicts (reports/labels.py), for a done that does not carry one
const VERDICT = { critical: '存在严重问题，须立即处置', major: '存在重大问题，计划不能执行', clear: '未发现重大问题' };

/** The verdict's level from the counts: critical, major or clear. */
export function verdictLevel(summary = {}) {
  if (summary.critical) return 'critical';
  return summary.major ? 'major' : 'clear';
}

/** Page numbers as runs: [1, 2, 3, 5] → "1–3、5" (the report's page cells: reports/blocks.py page_runs). */
export function pageRuns(list) {
  const sorted = [...new Set(list)].sort((a, b) => a - b);
  const runs = [];
  for (const p of sorted) {
    const last = runs[runs.length - 1];
    if (last && p === last[1] + 1) last[1] = p;
    else runs.push([p, p]);
  }
  return runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join('、');
}

const pages = (list) => (list?.length ? `第 ${pageRuns(list)} 页` : '');

// the reader's parts (vent_agent/review/judgement/read_scope.py PART_LABELS); an unknown one shows as 计划其他部分
const PART_LABEL = { cover: '封面（矿井、月份）', signoff: '审批签字', basis: '编制依据', list: '用风地点清单', calculations: '需风量计算', allocation: '风量分配', totals: '矿井总风量' };

/** The coverage's parts as rows `{part, label, found, confidence, pages}`, whether the service sends a
 * list of them or a map part → confidence (with `part_pages`, part → the pages it was read on). */
function partRows(parts, partPages = {}) {
  if (Array.isArray(parts)) return parts;
  return Object.entries(parts || {}).map(([part, confidence]) => ({ part, label: PART_LABEL[part], found: confidence !== 'none', confidence, pages: partPages?.[part] }));
}

/** The coverage: the reader's parts, locations and low-confidence pages when the service says them, else
 * the counts (locations found, figures read / not read). Names may come as lists or as counts. */
export function coverageView(cov) {
  const root = el('section', { class: 'coverage', id: 'coverage' }, el('h3', {}, '识别情况'));
  if (!cov) return root.append(el('p', { class: 'muted' }, '服务未给出识别情况。')), root;
  const facts = [];
  if (cov.mine || cov.month) facts.push(`矿井 ${cov.mine || '未识别'}，计划月份 ${cov.month || '未识别'}`);
  if (cov.reviewable === false || cov.unreadable) facts.push(el('strong', { class: 'st st-breach' }, '计划无法可靠识别，未作判定'));
  if (Array.isArray(cov.locations)) facts.push(`确认的用风地点 ${cov.locations.length} 个：${cov.locations.join('、') || '无'}`);
  else if (cov.locations_established != null) facts.push(`确认的用风地点 ${cov.locations_established} 个（识别 ${cov.locations_found} 个）`);
  else if (cov.locations_found !== undefined) facts.push(`识别用风地点 ${cov.locations_found} 个`);
  const unsure = cov.names_not_established;
  if (Array.isArray(unsure) && unsure.length) facts.push(`未能确认的地点名称：${unsure.join('、')}`);
  else if (typeof unsure === 'number' && unsure) facts.push(`未能确认为用风地点的名称 ${unsure} 个（名称见 Word 报告）`);
  if (cov.figures_read !== undefined) {
    const all = cov.figures_read + (cov.figures_not_read || 0);
    facts.push(`读取数值 ${all} 个，其中 ${cov.figures_read} 个可靠` + (cov.figures_not_read ? `，${cov.figures_not_read} 个未能可靠识别（不据以判定重大问题）` : ''));
  }
  if (cov.pages_low_confidence?.length) facts.push(`低置信度页：${pages(cov.pages_low_confidence)}`);
  root.append(el('ul', {}, ...facts.map((f) => el('li', {}, f))));
  const parts = partRows(cov.parts, cov.part_pages);
  if (parts.length) {
    root.append(el('table', { class: 'parts' },
      el('thead', {}, el('tr', {}, ...['计划组成部分', '是否找到', '识别可靠性', '页码'].map((h) => el('th', {}, h)))),
      el('tbody', {}, ...parts.map((p) => el('tr', { 'data-part': p.part },
        el('td', {}, p.label || PART_LABEL[p.part] || '计划其他部分'),
        el('td', {}, el('span', { class: `st st-${p.found ? 'ok' : 'breach'}` }, p.found ? '已找到' : '未找到')),
        el('td', {}, el('span', { class: `st st-${{ high: 'ok', low: 'warn', none: 'none' }[p.confidence] || 'none'}` }, CONFIDENCE[p.confidence] || p.confidence || '—')),
        el('td', { class: 'nowrap' }, pages(p.pages) || '—'))))));
  }
  return root;
}

/** A recorded value as text, not JSON: a list joined by 、, a map as "key value" pairs joined by ；. */
function valueText(v) {
  if (Array.isArray(v)) return v.map(valueText).join('、');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k} ${valueText(x)}`).join('；');
  return typeof v === 'number' ? String(Number(v.toFixed(6))) : String(v);
}

/** A calculator's inputs as "名称 = 值 单位" lines: the service's labelled rows (`detail.arguments`), else the
 * recorded inputs by name. */
function argumentList(d) {
  const rows = d.arguments || Object.entries(d.inputs || {}).filter(([, v]) => v != null)
    .map(([name, v]) => ({ label: name, value: valueText(v), unit: '' }));
  if (!rows.length) return null;
  return el('div', { class: 'args' }, '输入：',
    el('ul', {}, ...rows.map((r) => el('li', { html: formulaHtml(`${r.label} = ${r.value}${r.unit ? ` ${r.unit}` : ''}`) }))));
}

function traceView(trace) {
  const detail = (l) => {
    const d = l.detail || {};
    const parts = [];
    if (d.cells) parts.push(el('div', {}, '该行：', el('span', { class: 'cells' }, d.cells.map((c) => String(c).replace(/\n/g, '')).join(' | '))));
    if (d.text) parts.push(el('div', {}, '原文：', el('q', {}, d.text)));
    if (l.kind === 'calc') {
      const args = argumentList(d);
      if (args) parts.push(args);
      if (d.formula) parts.push(el('div', {}, '公式：', el('span', { html: formulaHtml(d.formula) })));
      const unit = d.unit ? ` ${d.unit}` : '';
      if (d.value !== undefined) {
        const again = d.recomputed !== undefined ? `（按记录的输入重新计算得 ${valueText(d.recomputed)}${unit}）` : '';
        parts.push(el('div', {}, `结果：${valueText(d.value)}${unit}${again}`));
      }
    }
    return parts;
  };
  return el('div', { class: 'trace' },
    el('p', {}, `溯源：${{ complete: '完整', broken: '有断链', partial: '部分无法核实' }[trace.status] || trace.status}`),
    el('ol', {}, ...trace.links.map((l) => el('li', { class: l.status },
      el('strong', {}, `${LINK_KIND[l.kind] || l.kind}`), ` ${l.what} `,
      el('span', { class: `tag ${l.status}` }, LINK_STATUS[l.status] || l.status),
      l.reason ? el('span', { class: 'muted' }, `（${l.reason}）`) : null, ...detail(l)))));
}

/** A finding's problem cell: the message, then the consequences of the root fault, one per line; formula
 * symbols (Q_f) with real subscripts, as the Word report sets them. */
export function problemCell(f) {
  const cell = el('td', { class: 'problem' }, el('div', { html: formulaHtml(f.message) }));
  if (f.consequences?.length) {
    cell.append(el('div', { class: 'consequences' }, el('strong', {}, '后果：'),
      el('ol', {}, ...f.consequences.map((c) => el('li', {},
        c.location && c.location !== f.location ? `${c.location}：` : '', el('span', { html: formulaHtml(c.message) }),
        c.page && c.page !== f.page ? el('span', { class: 'muted' }, `（第 ${c.page} 页）`) : null)))));
  }
  return cell;
}

const COLUMNS = [['序号', 'nowrap'], ['程度', 'nowrap'], ['类别', 'nowrap'], ['地点', 'place'], ['问题及后果', ''], ['页码', 'nowrap'], ['依据', 'basis'], ['溯源', 'nowrap']];

function findingsTable(record, root) {
  const findings = record.findings || [];
  const shown = new Set(Object.keys(SEVERITY));
  const counts = Object.fromEntries(Object.keys(SEVERITY).map((s) => [s, findings.filter((f) => f.severity === s).length]));
  const body = el('tbody');
  const toggleTrace = async (f, row) => {
    const next = row.nextElementSibling;
    if (next?.classList.contains('trace-row')) return next.remove();
    const cell = el('td', { colspan: COLUMNS.length }, '正在溯源…');
    row.after(el('tr', { class: 'trace-row' }, cell));
    try {
      const chain = el('div', { class: 'chain' }, '正在读取溯源图…');
      cell.replaceChildren(el('div', { class: 'trace-pair' }, traceView(await api(f.trace_url)), chain));
      chainView(record.report_id, f.index).then((view) => chain.replaceWith(view), (err) => { chain.textContent = `溯源图：${err.message}`; });
    } catch (err) {
      cell.textContent = `溯源失败：${err.message}`;
    }
  };
  const render = () => {
    body.replaceChildren();
    for (const f of findings) {
      if (!shown.has(f.severity)) continue;
      const row = el('tr', { class: `sev-${f.severity}`, 'data-index': f.index },
        el('td', { class: 'nowrap' }, String(f.index)),
        el('td', { class: 'nowrap' }, el('span', { class: `sev ${f.severity}` }, SEVERITY[f.severity] || f.severity)),
        el('td', { class: 'nowrap' }, CATEGORY[f.category] || f.category),
        el('td', { class: 'place' }, f.place),
        problemCell(f),
        el('td', { class: 'nowrap' }, f.page ? `第 ${f.page} 页` : '—'),
        el('td', { class: 'basis muted' }, f.source || ''));
      row.append(el('td', { class: 'nowrap' }, el('button', { type: 'button', class: 'icon trace-btn', onclick: () => toggleTrace(f, row) }, '溯源')));
      body.append(row);
    }
  };
  const filters = el('div', { class: 'filters' }, el('span', {}, '严重程度：'),
    ...Object.entries(SEVERITY).map(([k, name]) => el('label', { class: `sev-filter ${k}` },
      el('input', { type: 'checkbox', checked: true, value: k, onchange: (e) => { e.target.checked ? shown.add(k) : shown.delete(k); render(); } }),
      ` ${name}（${counts[k]}）`)));
  render();
  root.append(el('h3', {}, `审查发现（共 ${findings.length} 条）`), filters,
    el('table', { class: 'findings' },
      el('colgroup', {}, ...COLUMNS.map(([, cls]) => el('col', { class: cls || 'wide' }))),
      el('thead', {}, el('tr', {}, ...COLUMNS.map(([h, cls]) => el('th', { class: cls }, h)))), body));
}

/** The plan's month out of date for the review's date: the sentence the report's page 1 states after
 * 注意： (the service's `done.month_note`, reports/front.py month_check), or null when it is in date. */
export function monthNote(note) {
  return note ? el('p', { class: 'month-note', id: 'month-note', role: 'note' }, el('strong', {}, '注意：'), note) : null;
}

/** Draw a finished review (its `done` event) into `root`. */
export async function showResult(root, done) {
  const s = done.summary || {};
  const level = verdictLevel(s);
  root.append(el('div', { class: `verdict ${level}`, id: 'verdict' }, el('span', { class: 'lbl' }, '审查结论'), done.verdict || VERDICT[level]));
  const late = monthNote(done.month_note);
  if (late) root.append(late);
  root.append(el('div', { class: 'summary' },
    ...Object.entries(SEVERITY).map(([k, name]) => el('span', { class: `sev ${k}` }, `${name} ${s[k] ?? 0}`)),
    el('a', { href: done.download_url, download: '', class: 'button primary', id: 'report-link' }, '下载 Word 审查报告')));
  root.append(coverageView(done.coverage));
  const reportId = done.download_url.split('/').pop().replace(/\.docx$/, '');
  try {
    findingsTable(await api(`/api/reports/${reportId}/provenance`), root);
  } catch (err) {
    root.append(el('div', { class: 'error' }, `读取发现失败：${err.message}`));
  }
}
