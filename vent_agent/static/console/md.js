// md.js — safe Markdown for the console: HTML is escaped first, then a small subset is rendered:
// headings, bullet and numbered lists, bold (status words coloured), inline code, tables (a cell's `<br>`
// kept as its line break), paragraphs, citation markers [[R1]].

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML. */
export function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

/** Status words set in bold (**超限**) get their colour: class `st st-<kind>`. */
export const STATUS_WORDS = {
  正常: 'ok', 偏低: 'low', 偏高: 'high', 预警: 'warn', 超限: 'breach', 报警: 'breach', 无数据: 'none',
};

function strong(_, text) {
  const kind = STATUS_WORDS[text];
  return kind ? `<strong class="st st-${kind}">${text}</strong>` : `<strong>${text}</strong>`;
}

function inline(escaped) {
  return escaped
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, strong)
    .replace(/\[\[(R\d+)\]\]/g, '<sup class="cite">[$1]</sup>');
}

// a table cell's line break, written `<br>` as GFM tables do (the only tag let through, and only there)
const cellText = (escaped) => inline(escaped).replace(/&lt;br\s*\/?&gt;/gi, '<br>');

const cells = (line) => line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
const isRule = (line) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);

/** Render Markdown text as HTML (every source character escaped before any tag is added). */
export function renderMarkdown(text) {
  const lines = escapeHtml(text).split(/\r?\n/);
  const out = [];
  let para = [];
  let list = null; // 'ul' | 'ol'
  const flushPara = () => {
    if (para.length) out.push(`<p>${inline(para.join('<br>'))}</p>`);
    para = [];
  };
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.、)]\s+(.*)$/.exec(line);
    if (line.trim().startsWith('|') && i + 1 < lines.length && isRule(lines[i + 1])) {
      flushPara();
      closeList();
      const head = cells(line);
      let html = `<table><thead><tr>${head.map((c) => `<th>${cellText(c)}</th>`).join('')}</tr></thead><tbody>`;
      i += 2;
      while (i < lines.length && lines[i].trim().startsWith('|')) {
        html += `<tr>${cells(lines[i]).map((c) => `<td>${cellText(c)}</td>`).join('')}</tr>`;
        i++;
      }
      i--;
      out.push(`${html}</tbody></table>`);
    } else if (heading) {
      flushPara();
      closeList();
      const level = Math.min(heading[1].length + 1, 6);
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
    } else if (bullet || numbered) {
      flushPara();
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline((bullet || numbered)[1])}</li>`);
    } else if (!line.trim()) {
      flushPara();
      closeList();
    } else {
      closeList();
      para.push(line);
    }
  }
  flushPara();
  closeList();
  return out.join('\n');
}
