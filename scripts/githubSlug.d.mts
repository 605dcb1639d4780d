/** The anchor GitHub gives a Markdown heading (its text, without its `#`s). */
export function githubSlug(heading: string): string;
