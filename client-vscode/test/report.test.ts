import * as assert from 'assert';
import { forWebview } from '../src/logic/report';

const CSP = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`;
const PAGE = `<!doctype html>
<html lang="en">
<head>
${CSP}
<style>body { margin: 0; }</style>
</head>
<body>
<main id="view"></main>
<script id="report-data" type="application/json">{"t":"<\\/body>"}</script>
<script>render();</script>
</body>
</html>
`;

describe('the workspace report in a webview', () => {
  const shown = forWebview(PAGE);

  it('keeps the page as it is, its content security policy included', () => {
    const added = /<style>body \{ color: inherit;[^<]*<\/style>|<script>\ndocument\.addEventListener[\s\S]*?<\/script>/g;
    assert.strictEqual(shown.replace(added, ''), PAGE);
    assert.ok(shown.includes(CSP));
  });

  it('adds its style after the page\'s, so that it wins over the webview\'s theme', () => {
    const style = shown.indexOf('color: inherit');
    assert.ok(shown.indexOf('body { margin: 0; }') < style && style < shown.indexOf('</head>'));
  });

  it('adds the script that follows in-page links after the page\'s own, inside <body>', () => {
    const script = shown.indexOf("closest('a[href^=\"#\"]')");
    assert.ok(shown.indexOf('render();') < script && script < shown.lastIndexOf('</body>'));
    assert.match(shown, /location\.hash = link\.getAttribute\('href'\)/);
  });

  it('adds both even to a page without <head> or <body>', () => {
    const bare = forWebview('<p>report</p>');
    assert.match(bare, /^<style>[\s\S]*<p>report<\/p><script>[\s\S]*<\/script>$/);
  });
});
