// turn.js — one streamed answer rendered from events (click interpretation and chat share it): status
// line, reasoning and tool calls folded (<details>), todo list, the Markdown answer, references, errors.

import { el } from './api.js';
import { renderMarkdown } from './md.js';

export class TurnView {
  /** `container`: where the turn is drawn. */
  constructor(container) {
    this.text = '';
    this.reasoning = '';
    this.tools = new Map();
    this.status = el('div', { class: 'status muted' });
    this.reasoningBox = el('details', { class: 'fold', hidden: true }, el('summary', {}, '推理过程'), el('pre'));
    this.toolBox = el('details', { class: 'fold tools', hidden: true }, el('summary', {}, '工具调用'), el('ol'));
    this.todoBox = el('details', { class: 'fold', hidden: true }, el('summary', {}, '任务清单'), el('ul'));
    this.answer = el('div', { class: 'answer md' });
    this.refs = el('div', { class: 'refs', hidden: true });
    this.extra = el('div', { class: 'extra' });
    this.root = el('div', { class: 'turn' }, this.status, this.reasoningBox, this.toolBox, this.todoBox,
      this.answer, this.refs, this.extra);
    container.append(this.root);
  }

  setStatus(text, kind = '') {
    this.status.textContent = text || '';
    this.status.className = `status ${kind || 'muted'}`;
  }

  setText(text) {
    this.text = text;
    this.answer.innerHTML = renderMarkdown(text);
  }

  /** Apply one event; returns true when the event ends the stream (done / interrupt). */
  apply(ev) {
    switch (ev.type) {
      case 'token':
        if (ev.source && ev.source !== 'main' && ev.source !== 'fast') break;
        this.setText((ev.replace ? '' : this.text) + (ev.content || ''));
        break;
      case 'reasoning':
        this.reasoning += ev.content || '';
        this.reasoningBox.hidden = false;
        this.reasoningBox.querySelector('pre').textContent = this.reasoning;
        break;
      case 'tool_call': {
        this.toolBox.hidden = false;
        const args = ev.args ? el('code', {}, JSON.stringify(ev.args)) : null;
        const item = el('li', { class: 'running' }, el('span', {}, ev.message || ev.tool), ' ', args);
        this.toolBox.querySelector('ol').append(item);
        this.tools.set(ev.tool, item);
        break;
      }
      case 'tool_result': {
        const item = this.tools.get(ev.tool);
        if (item) {
          item.className = ev.status === 'error' ? 'failed' : 'ok';
          item.append(el('span', { class: 'muted' }, ` — ${ev.message || '完成'}`));
        }
        break;
      }
      case 'updated_todo_list':
        this.showTodos(ev.todos || []);
        break;
      case 'references':
        if (typeof ev.content === 'string') this.setText(ev.content);
        this.showReferences(ev.references || [], ev.warnings || []);
        break;
      case 'error':
        this.extra.append(el('div', { class: 'error' }, `错误：${ev.message || '未知错误'}`));
        break;
      case 'done':
        this.setStatus(ev.message || '完成');
        return true;
      case 'interrupt':
        this.setStatus(ev.message || '等待审批', 'warn');
        return true;
      case 'thinking':
      case 'executing':
      case 'progress':
      case 'generating':
      case 'agent_start':
        if (ev.message) this.setStatus(ev.message);
        break;
      default:
        break;
    }
    return false;
  }

  showTodos(todos) {
    const mark = { completed: ['已完成', 'ok'], in_progress: ['进行中', 'warn'], pending: ['待办', 'none'] };
    this.todoBox.hidden = !todos.length;
    this.todoBox.querySelector('ul').replaceChildren(...todos.map((t) => {
      const [word, kind] = mark[t.status] || mark.pending;
      return el('li', { class: t.status }, el('span', { class: `st st-${kind}` }, word), ` ${t.content}`);
    }));
  }

  showReferences(refs, warnings) {
    const items = refs.map((r) => el('li', {},
      r.marker ? el('sup', { class: 'cite' }, `[${r.marker}]`) : null, ' ',
      el('strong', {}, r.label || r.source || ''), r.excerpt ? el('span', { class: 'muted' }, ` ${r.excerpt}`) : null));
    const warn = warnings.map((w) => el('li', { class: 'warn' }, w.message));
    this.refs.hidden = !(items.length || warn.length);
    this.refs.replaceChildren(el('h4', {}, '引用的规程条款'), el('ol', {}, ...items), ...(warn.length ? [el('ul', {}, ...warn)] : []));
  }

  /** Fill from a stored turn of GET /api/chat/history (the fold of its stream). */
  fromHistory(msg) {
    this.setText(msg.content || '');
    if (msg.tool_calls?.length) {
      this.toolBox.hidden = false;
      this.toolBox.querySelector('ol').replaceChildren(...msg.tool_calls.map((c) => el('li', { class: 'ok' }, c.tool)));
    }
    if (msg.todos?.length) this.showTodos(msg.todos);
    if (msg.references?.length) this.showReferences(msg.references, msg.citation_warnings || []);
    if (msg.error) this.extra.append(el('div', { class: 'error' }, `错误：${msg.error}`));
  }
}

/** Feed a stream's events into `view`; `onEvent(ev)` sees each first. Errors of the stream itself are
 * shown in the turn. Returns the last event. */
export async function play(events, view, onEvent = () => {}) {
  let last = null;
  try {
    for await (const ev of events) {
      last = ev;
      onEvent(ev);
      if (view.apply(ev)) break;
    }
  } catch (err) {
    view.extra.append(el('div', { class: 'error' }, `连接中断：${err.message}`));
  }
  return last;
}
