// The workspace report (doublet.workspaceReport): the server sends the page of
// `doublet report` (one renderer, server/doublet/report_html); the extension shows
// it as it is, with two small additions a VS Code webview needs. No VS Code here:
// unit-tested on its own.

export interface WorkspaceReport {
  /** The self-contained report page; null when the server has no workspace folder. */
  html: string | null;
  pairs: number;
  documents: number;
}

// A webview styles <body> with the editor's theme (colour, font, padding) in a CSS
// layer; the page's own rules win over that, so these only undo what the page leaves
// to its root: its light page keeps its dark text in a dark editor theme.
const STYLE = `<style>body { color: inherit; font: inherit; padding: 0; }</style>`;

// A webview answers a click on an in-page link (<a href="#...">) itself, by scrolling
// to the element of that id and nothing else; the report's views (#/, #/pair/N,
// #/doc/N) are routes of the fragment, so follow the link here. Allowed by the page's
// own CSP (script-src 'unsafe-inline').
const SCRIPT = `<script>
document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a[href^="#"]') : null;
  if (!link || event.defaultPrevented) { return; }
  event.preventDefault();
  location.hash = link.getAttribute('href');
});
</script>`;

/** The report page as a webview shows it: the page with the style and script above added. */
export function forWebview(page: string): string {
  const head = page.indexOf('</head>');
  const withStyle = head < 0 ? STYLE + page : page.slice(0, head) + STYLE + page.slice(head);
  const body = withStyle.lastIndexOf('</body>');
  return body < 0 ? withStyle + SCRIPT : withStyle.slice(0, body) + SCRIPT + withStyle.slice(body);
}
