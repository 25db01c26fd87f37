// md.js — safe Markdown for the console: HTML is escaped first, then a small subset is rendered:
// headings, bullet and numbered lists, blockquotes (> …), bold (status words coloured), emphasis (*…*, _…_),
// inline code, tables (a cell's `<br>` kept as its line break; a column of short words kept on one line),
// paragraphs, citation markers [[R1]],
// and formula symbols with real subscripts (k_h → k<sub>h</sub>), as the Word report sets them.

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

/** A symbol with a subscript as the calculators write it (k_h, L_max, q_CO₂, Q_f): the same pattern as
 * the calculators' and the Word report's (calc/symbols.py SUBSCRIPT; a test keeps the two equal). */
export const SUBSCRIPT = /(?<![A-Za-z0-9])([A-Za-zΣ])_([A-Za-z0-9₀-₉]+)/g;

/** Escaped text with its formula symbols' subscripts set as <sub>, code spans left as written. */
export function subscripts(escaped) {
  return escaped.split(/(`[^`]+`)/).map((part, i) => (i % 2 ? part : part.replace(SUBSCRIPT, '$1<sub>$2</sub>'))).join('');
}

/** Plain text (a finding's message) as HTML: escaped, its formula symbols' subscripts set as <sub>. */
export function formulaHtml(text) {
  return subscripts(escapeHtml(text));
}

// emphasis: *…* or _…_ hugging its text (a lone `*` or `_` between spaces stays as written; a formula
// symbol's `_` is a subscript by then)
const EMPHASIS = /(?<![*\w])\*(?![\s*])([^*]*?[^\s*])\*(?![*\w])|(?<![_\w])_(?![\s_])([^_]*?[^\s_])_(?![_\w])/g;

function inline(escaped) {
  return subscripts(escaped).split(/(`[^`]+`)/).map((part, i) => (i % 2
    ? `<code>${part.slice(1, -1)}</code>`
    : part
      .replace(/\*\*([^*]+)\*\*/g, strong)
      .replace(EMPHASIS, (_, star, under) => `<em>${star ?? under}</em>`)
      .replace(/\[\[(R\d+)\]\]/g, '<sup class="cite">[$1]</sup>'))).join('');
}

// a table cell's line break, written `<br>` as GFM tables do (the only tag let through, and only there)
const cellText = (escaped) => inline(escaped).replace(/&lt;br\s*\/?&gt;/gi, '<br>');

/** A column whose every cell (header included) is a short word or figure (程度, 类别, 页码) is kept on one
 * line; a narrow chat bubble would otherwise wrap it a character a line. */
export const SHORT_CELL = 6;
const plain = (escaped) => escaped.replace(/&[a-z]+;|&#\d+;/g, '&').replace(/&lt;br\s*\/?&gt;/gi, '\n');
const isShort = (escaped) => plain(escaped).split('\n').every((line) => line.trim().length <= SHORT_CELL);

/** A table; each body cell carries its column's header in `data-label`, so a narrow container (the map's
 * side panel at 1280 px) can set each row as a card of "header：value" lines instead of columns a few
 * characters wide (console.css). */
function tableHtml(head, rows) {
  const nowrap = head.map((h, c) => isShort(h) && rows.every((r) => isShort(r[c] ?? '')));
  const label = head.map((h) => h.replace(/[*`]/g, '')); // escaped already: safe in an attribute
  const cell = (tag, text, c) => `<${tag}${nowrap[c] ? ' class="nowrap"' : ''}${
    tag === 'td' && label[c] ? ` data-label="${label[c]}"` : ''}>${cellText(text)}</${tag}>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('');
  return `<table><thead><tr>${head.map((h, i) => cell('th', h, i)).join('')}</tr></thead><tbody>${body}</tbody></table>`;
}

// cells split at the pipes the report did not escape (reports/markdown.py writes a cell's own `|` as `\|`)
const cells = (line) => line.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(/(?<!\\)\|/)
  .map((c) => c.trim().replace(/\\\|/g, '|'));
const isRule = (line) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(line);

/** Render Markdown text as HTML (every source character escaped before any tag is added). */
export function renderMarkdown(text) {
  return renderLines(escapeHtml(text).split(/\r?\n/));
}

// a blockquote's line (its `>` escaped by then), and the text after the marker
const QUOTE = /^\s*&gt;\s?(.*)$/;

/** HTML of escaped Markdown lines. */
function renderLines(lines) {
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
    if (QUOTE.test(line)) {
      flushPara();
      closeList();
      const quoted = [];
      for (; i < lines.length && QUOTE.test(lines[i]); i++) quoted.push(QUOTE.exec(lines[i])[1]);
      i--;
      out.push(`<blockquote>${renderLines(quoted)}</blockquote>`);
    } else if (line.trim().startsWith('|') && i + 1 < lines.length && isRule(lines[i + 1])) {
      flushPara();
      closeList();
      const head = cells(line);
      const rows = [];
      for (i += 2; i < lines.length && lines[i].trim().startsWith('|'); i++) rows.push(cells(lines[i]));
      i--;
      out.push(tableHtml(head, rows));
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
