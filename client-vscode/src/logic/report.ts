// The workspace report (doublet.workspaceReport) as an HTML page. No VS Code
// here: unit-tested on its own. Everything shown is escaped.

export interface ReportPair {
  a: string;
  b: string;
  aPath: string;
  bPath: string;
  similarity: number;
  aCoverage: number;
  bCoverage: number;
  longest: number;
  passages: { a: { start: { line: number } }; b: { start: { line: number } }; score: number; kind: string }[];
}

export interface Report {
  pairs: ReportPair[];
  documents: number;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);
}

function percent(value: number): string {
  return `${Math.round(100 * value)}%`;
}

/** A link that asks the extension to open a file at a line (handled by the webview script). */
function link(uri: string, path: string, line: number): string {
  return `<a href="#" data-uri="${escapeHtml(uri)}" data-line="${line}">${escapeHtml(path)}:${line + 1}</a>`;
}

export function renderReport(report: Report, nonce: string): string {
  const rows = report.pairs
    .map((pair, i) => {
      const passages = pair.passages
        .map((p) => `<li>${link(pair.a, pair.aPath, p.a.start.line)} ~ ${link(pair.b, pair.bPath, p.b.start.line)} (${escapeHtml(p.kind)}, ${percent(p.score)} exact)</li>`)
        .join('');
      return (
        `<tr><td>${i + 1}</td><td>${escapeHtml(pair.aPath)}</td><td>${escapeHtml(pair.bPath)}</td>` +
        `<td>${percent(pair.similarity)}</td><td>${percent(pair.aCoverage)} / ${percent(pair.bCoverage)}</td>` +
        `<td>${pair.longest}</td></tr><tr class="passages"><td></td><td colspan="5"><ul>${passages}</ul></td></tr>`
      );
    })
    .join('\n');
  const body = report.pairs.length
    ? `<table><thead><tr><th>#</th><th>A</th><th>B</th><th>similarity</th><th>covers A / B</th><th>longest (characters)</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p>No pair of documents shares a passage above the thresholds.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<title>Doublet: workspace report</title>
<style>
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
table { border-collapse: collapse; } td, th { padding: 2px 8px; text-align: left; }
tr.passages td { padding-bottom: 8px; } ul { margin: 0; padding-left: 1.2em; }
</style></head>
<body><h2>Doublet: ${report.pairs.length} pair${report.pairs.length === 1 ? '' : 's'} of ${report.documents} documents share passages</h2>
${body}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.addEventListener('click', (event) => {
  const target = event.target.closest('a[data-uri]');
  if (!target) { return; }
  event.preventDefault();
  vscode.postMessage({ open: target.dataset.uri, line: Number(target.dataset.line) });
});
</script></body></html>`;
}
