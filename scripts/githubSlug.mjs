// The anchor GitHub gives a Markdown heading: lower case, backticks and other punctuation
// dropped, spaces as hyphens. Shared by the docs test (links between pages) and the API
// reference's plugin (links to the guides' sections).

/** @param {string} heading the heading's text, without its `#`s */
export function githubSlug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}
