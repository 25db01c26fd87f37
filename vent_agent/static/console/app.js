// app.js — the console's entry: the service's config (the figures' precision, format.js), the token box
// (localStorage; the demo tokens offered when the service uses its built-in demo user service), the views
// switched by the URL hash (运行总览 first).

import { api, banner, currentView, getToken, setToken, showBanner, tokenChosen } from './api.js';
import { initChat, loadSessions } from './chat.js';
import { initAirflow } from './airflow.js';
import { setFigures } from './format.js';
import { initMap } from './map.js';
import { initOverview } from './overview.js';
import { initReview } from './review.js';

const VIEWS = ['overview', 'map', 'chat', 'review'];

function show() {
  const view = VIEWS.includes(currentView()) ? currentView() : 'overview';
  for (const v of VIEWS) document.getElementById(`view-${v}`).hidden = v !== view;
  document.querySelectorAll('.tabs a').forEach((a) => a.classList.toggle('active', a.dataset.view === view));
  showBanner(); // each tab its own message
}

/** The service's settings for the page (GET /api/console/config): the demo tokens, the figures' precision. */
async function loadConfig() {
  try {
    return await api('/api/console/config');
  } catch (err) {
    return { demo_tokens: [], figures: {} };
  }
}

async function initToken(cfg) {
  const input = document.getElementById('token-input');
  const note = document.getElementById('token-note');
  input.value = getToken();
  document.getElementById('token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    setToken(input.value.trim());
    note.textContent = input.value.trim() ? '已保存，正在核对...' : '已清除';
    banner('');
    loadSessions();
    window.dispatchEvent(new CustomEvent('vent:token')); // the overview again: this user's acknowledgements
  });
  // who the service knows the token as (the overview's user_name): said beside the box
  window.addEventListener('vent:overview', (e) => {
    const user = e.detail.user_name;
    note.textContent = user ? `用户 ${user}` : getToken() ? '令牌无效' : '未设置令牌';
    note.className = !user && getToken() ? 'st st-breach' : 'muted';
  });
  const list = document.getElementById('demo-tokens');
  list.replaceChildren(...cfg.demo_tokens.map((t) => Object.assign(document.createElement('option'), { value: t.token, label: `示范用户 ${t.user_name}` })));
  if (cfg.demo_tokens.length) {
    note.title = `内置示范用户服务：可用 ${cfg.demo_tokens.map((t) => `${t.token}（${t.user_name}）`).join('、')}`;
    if (!tokenChosen()) {
      setToken(cfg.demo_tokens[0].token);
      input.value = cfg.demo_tokens[0].token;
    }
  }
}

window.addEventListener('hashchange', () => {
  show();
  window.scrollTo(0, 0); // another tab: shown from its top (the map's notice of a modelled change, the strip)
});
show();
const config = await loadConfig();
setFigures(config.figures);
initToken(config);
initOverview();
initMap();
initAirflow();
initChat();
initReview();
