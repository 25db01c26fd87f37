// chat.js — the caller's sessions (list, pin, rename, delete), history, streamed turns, the plan-approval
// card (POST /api/chat/resume), suggestions as buttons, and picking a running turn up again after a
// reload or a dropped connection (X-Run-Id + Last-Event-ID through vent-client).

import { ApiError, api, bannerFor, el, follow, getToken, openStream } from './api.js';
import { renderMarkdown } from './md.js';
import { TurnView, play } from './turn.js';

const say = bannerFor('chat'); // this tab's banner

const CURRENT_KEY = 'vent-console.session';
const RUN_KEY = 'vent-console.run'; // {session_id, run_id, seq} of a turn still streaming

let sessionId = localStorage.getItem(CURRENT_KEY) || null;
let busy = false;

const log = () => document.getElementById('chat-log');

function setSession(id) {
  sessionId = id;
  if (id) localStorage.setItem(CURRENT_KEY, id);
  else localStorage.removeItem(CURRENT_KEY);
}

function setBusy(on) {
  busy = on;
  document.getElementById('chat-send').textContent = on ? '回答中…' : '发送';
}

function userBubble(text, attachment) {
  log().append(el('div', { class: 'msg user' }, el('div', { class: 'bubble' }, text,
    attachment ? el('div', { class: 'muted' }, `附件：${attachment}`) : null)));
}

function assistantTurn() {
  const wrap = el('div', { class: 'msg assistant' });
  log().append(wrap);
  return new TurnView(wrap);
}

function scrollDown() {
  const box = log();
  box.scrollTop = box.scrollHeight;
}

function showSuggestions(view, suggestions) {
  if (!suggestions?.length) return;
  view.extra.append(el('div', { class: 'suggestions' }, el('span', { class: 'muted' }, '您可能还想问：'),
    ...suggestions.map((s) => el('button', { type: 'button', class: 'chip', onclick: () => send(s) }, s))));
}

function approvalCard(view, intr) {
  const card = el('div', { class: 'approval' },
    el('h4', {}, '执行计划待审批'),
    el('div', { class: 'md', html: renderMarkdown(intr.plan || (intr.interrupts || []).join('\n')) }),
    el('p', { class: 'muted' }, intr.message || ''));
  const decide = async (action) => {
    card.querySelectorAll('button').forEach((b) => (b.disabled = true));
    card.append(el('p', { class: 'muted' }, action === 'approve' ? '已批准，继续执行…' : '已拒绝'));
    await resume(action, intr.thread_id);
  };
  card.append(el('div', { class: 'row' },
    el('button', { type: 'button', class: 'primary', onclick: () => decide('approve') }, '批准'),
    el('button', { type: 'button', class: 'danger', onclick: () => decide('reject') }, '拒绝')));
  view.extra.append(card);
}

/** Play a turn's events into a new assistant bubble, remembering the run so a reload can follow it. */
async function playTurn(events, runId, sid) {
  const view = assistantTurn();
  const remember = (seq) => localStorage.setItem(RUN_KEY, JSON.stringify({ session_id: sid, run_id: runId, seq }));
  if (runId) remember(0);
  const last = await play(events, view, (ev) => {
    if (ev.type === 'suggestions') showSuggestions(view, ev.suggestions);
    if (ev.type === 'interrupt') approvalCard(view, ev);
    scrollDown();
  });
  if (!last || last.type === 'done' || last.type === 'interrupt') localStorage.removeItem(RUN_KEY);
  scrollDown();
  return last;
}

function refused(err) {
  if (err instanceof ApiError && err.status === 409) say(`会话忙：${err.message}`);
  else if (err instanceof ApiError && err.status === 401) say(`需要访问令牌：${err.message}`);
  else say(`发送失败：${err.message}`);
}

export async function send(message) {
  if (!message.trim()) return;
  say('');
  const form = new FormData();
  form.append('message', message);
  if (sessionId) form.append('session_id', sessionId);
  else form.append('mode', document.getElementById('chat-mode').value);
  let stream;
  try {
    stream = await openStream('/api/chat', { body: form });
  } catch (err) {
    refused(err);
    return;
  }
  const sid = stream.response.headers.get('x-session-id');
  const isNew = sid !== sessionId;
  setSession(sid);
  userBubble(message);
  setBusy(true);
  if (isNew) loadSessions();
  try {
    await playTurn(stream.events, stream.response.headers.get('x-run-id'), sid);
  } finally {
    setBusy(false);
    loadSessions();
  }
}

async function resume(action, threadId) {
  say('');
  let stream;
  try {
    stream = await openStream('/api/chat/resume', { json: { session_id: sessionId, action, thread_id: threadId || undefined } });
  } catch (err) {
    refused(err);
    return;
  }
  setBusy(true);
  try {
    await playTurn(stream.events, stream.response.headers.get('x-run-id'), sessionId);
  } finally {
    setBusy(false);
  }
}

/** Render a session's history; the last assistant turn's pending interrupt gets its approval card. */
async function openSession(id) {
  setSession(id);
  log().replaceChildren();
  highlight();
  if (!id) return;
  let hist;
  try {
    hist = await api(`/api/chat/history/${encodeURIComponent(id)}?limit=200`);
  } catch (err) {
    if (err.status === 404) setSession(null);
    say(`读取历史失败：${err.message}`);
    return;
  }
  hist.messages.forEach((m, i) => {
    if (m.role === 'user') return userBubble(m.content, m.attachment);
    const view = assistantTurn();
    view.fromHistory(m);
    if (m.download_url) view.extra.append(el('a', { href: m.download_url, download: '' }, '下载 Word 审查报告'));
    const isLast = i === hist.messages.length - 1;
    if (isLast && m.interrupt) approvalCard(view, m.interrupt);
    if (isLast) showSuggestions(view, m.suggestions);
  });
  scrollDown();
  // a turn that was still streaming when the page went away (its answer not yet in the history):
  // follow it from the start of its run
  const run = JSON.parse(localStorage.getItem(RUN_KEY) || 'null');
  const answered = hist.messages.length && hist.messages[hist.messages.length - 1].role === 'assistant';
  if (run && run.session_id === id && answered) localStorage.removeItem(RUN_KEY);
  else if (run && run.session_id === id) {
    setBusy(true);
    try {
      await playTurn(follow(run.run_id, 0), run.run_id, id);
    } catch (err) {
      localStorage.removeItem(RUN_KEY);
    } finally {
      setBusy(false);
    }
  }
}

function highlight() {
  document.querySelectorAll('#session-list li').forEach((li) => li.classList.toggle('active', li.dataset.id === sessionId));
}

export async function loadSessions() {
  const list = document.getElementById('session-list');
  if (!getToken()) {
    list.replaceChildren(el('li', { class: 'muted' }, '请先设置访问令牌'));
    return;
  }
  let data;
  try {
    data = await api('/api/sessions?limit=100');
  } catch (err) {
    list.replaceChildren(el('li', { class: 'error' }, err.message));
    return;
  }
  list.replaceChildren(...data.sessions.map((s) => {
    const pinned = s.sort_order === 1;
    const act = (label, title, fn) => el('button', { type: 'button', class: 'icon', title, onclick: (e) => { e.stopPropagation(); fn(); } }, label);
    return el('li', { 'data-id': s.session_id, onclick: () => openSession(s.session_id) },
      el('span', { class: 'title' }, pinned ? el('span', { class: 'pin' }, '置顶') : null, s.title || '（无标题）'),
      el('span', { class: 'meta muted' }, `${s.mode === 'plan' ? '计划' : '完全'} · ${s.message_count} 条 · ${(s.updated_at || s.created_at || '').replace('T', ' ').slice(5, 16)}`),
      el('span', { class: 'acts' },
        act(pinned ? '取消置顶' : '置顶', '置顶/取消置顶', async () => { await api(`/api/sessions/${s.session_id}/pin`, { method: 'PUT' }); loadSessions(); }),
        act('重命名', '重命名', async () => {
          const title = prompt('新的会话标题', s.title || '');
          if (title === null) return;
          try { await api(`/api/sessions/${s.session_id}/title`, { method: 'PUT', json: { title } }); } catch (err) { say(err.message); }
          loadSessions();
        }),
        act('删除', '删除会话', async () => {
          if (!confirm(`删除会话「${s.title || s.session_id}」？`)) return;
          await api(`/api/sessions/${s.session_id}`, { method: 'DELETE' });
          if (sessionId === s.session_id) openSession(null);
          loadSessions();
        })));
  }));
  highlight();
}

/** Say before anything is sent when the service has no language model (GET /api/model): chat then
 * answers only with an error, while the map's interpretations and the plan review work without one. */
async function showModel() {
  const box = document.getElementById('chat-model');
  try {
    const info = await api('/api/model');
    box.hidden = Boolean(info.current);
    box.textContent = info.current ? '' : '服务未配置语言模型（VENT_MODELS 或 VENT_LLM_*）：对话需要模型，发送的问题会得到“未配置模型”的错误。'
      + '通风网络图的点击解读与配风计划审查不需要模型，照常可用。';
  } catch {
    box.hidden = true; // the service unreachable: the banner says so when a request fails
  }
}

export function initChat() {
  const input = document.getElementById('chat-input');
  showModel();
  document.getElementById('chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (busy) {
      say('上一条消息仍在回答中；再次发送会被服务拒绝（409）。', 'info');
    }
    const text = input.value;
    input.value = '';
    send(text);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      document.getElementById('chat-form').requestSubmit();
    }
  });
  document.getElementById('new-session').addEventListener('click', () => openSession(null));
  loadSessions();
  if (sessionId) openSession(sessionId);
}

