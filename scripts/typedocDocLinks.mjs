// TypeDoc plugin (typedoc.json "plugin"): the TSDoc comments cite the guides as
// `docs/<page>.md` or `docs/<page>.md, "<section title>"`; in the API reference each citation
// becomes a link to that page (and section) on GitHub. A citation of a page or section that does
// not exist is a warning, which `npm run docs` treats as an error: the references cannot rot.
import { existsSync, readFileSync } from 'node:fs';
import { Converter } from 'typedoc';
import { githubSlug as slug } from './githubSlug.mjs';

const REPO_DOCS = 'https://github.com/zk-recipes/zk-recipes/blob/main/docs';
const docsDir = new URL('../docs/', import.meta.url);
/** `docs/<page>.md`, then `, "<section>"` (the comma may end a line) or `#<anchor>`. */
const CITATION = /docs\/([a-z0-9-]+)\.md(?:,\s+"([^"]+)"|#([a-z0-9_-]+))?/g;

/** A page's headings (outside code fences), backticks dropped, as titles and as anchors. */
const headingsOf = new Map();
function headings(page) {
  if (!headingsOf.has(page)) {
    const file = new URL(`${page}.md`, docsDir);
    let found = null;
    if (existsSync(file)) {
      found = { titles: new Set(), anchors: new Set() };
      let fenced = false;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line.startsWith('```')) fenced = !fenced;
        const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
        if (heading === null) continue;
        found.titles.add(heading[1].replace(/`/g, '').trim());
        found.anchors.add(slug(heading[1]));
      }
    }
    headingsOf.set(page, found);
  }
  return headingsOf.get(page);
}

/** `parts` with each citation in its text parts made a link; a citation that names nothing is reported. */
function linked(parts, where, warn) {
  const out = [];
  for (const part of parts) {
    if (part.kind !== 'text') {
      out.push(part);
      continue;
    }
    let at = 0;
    for (const match of part.text.matchAll(CITATION)) {
      const [citation, page, section, anchor] = match;
      const found = headings(page);
      let href = `${REPO_DOCS}/${page}.md`;
      if (found === null) warn(`${where} cites docs/${page}.md, which does not exist`);
      else if (section !== undefined) {
        // A citation may break across comment lines: "While you\nhold" cites "While you hold".
        const title = section.replace(/`/g, '').replace(/\s+/g, ' ').trim();
        if (!found.titles.has(title)) warn(`${where} cites docs/${page}.md, "${section}": no such heading`);
        href += `#${slug(title)}`;
      } else if (anchor !== undefined) {
        if (!found.anchors.has(anchor)) warn(`${where} cites docs/${page}.md#${anchor}: no such heading`);
        href += `#${anchor}`;
      }
      if (match.index > at) out.push({ kind: 'text', text: part.text.slice(at, match.index) });
      out.push({ kind: 'inline-tag', tag: '@link', text: citation.replace(/\s+/g, ' '), target: href });
      at = match.index + citation.length;
    }
    out.push(at === 0 ? part : { kind: 'text', text: part.text.slice(at) });
  }
  return out;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const warn = (message) => app.logger.warn(message);
    for (const reflection of Object.values(context.project.reflections)) {
      const comment = reflection.comment;
      if (comment === undefined) continue;
      const where = reflection.getFriendlyFullName();
      comment.summary = linked(comment.summary, where, warn);
      for (const tag of comment.blockTags) tag.content = linked(tag.content, where, warn);
    }
  });
}
