// Comparing a passage with its match: both files side by side, both passages
// revealed, selected and highlighted.

import * as vscode from 'vscode';
import { JsonRange } from './logic/similar';
import { toRange } from './similarView';

let highlight: vscode.TextEditorDecorationType | undefined;

function decoration(): vscode.TextEditorDecorationType {
  if (!highlight) {
    highlight = vscode.window.createTextEditorDecorationType({
      backgroundColor: new vscode.ThemeColor('editor.findMatchHighlightBackground'),
      borderColor: new vscode.ThemeColor('editorWarning.foreground'),
      borderStyle: 'solid',
      borderWidth: '1px',
    });
  }
  return highlight;
}

export async function openPassage(uri: string, range: JsonRange): Promise<void> {
  const selection = toRange(range);
  const editor = await vscode.window.showTextDocument(vscode.Uri.parse(uri), { selection, preview: true });
  editor.revealRange(selection, vscode.TextEditorRevealType.InCenter);
}

export async function compareSideBySide(uri: string, range: JsonRange, otherUri: string, otherRange: JsonRange): Promise<void> {
  const left = toRange(range);
  const right = toRange(otherRange);
  const leftEditor = await vscode.window.showTextDocument(vscode.Uri.parse(uri), {
    viewColumn: vscode.ViewColumn.One,
    selection: left,
    preview: false,
  });
  const rightEditor = await vscode.window.showTextDocument(vscode.Uri.parse(otherUri), {
    viewColumn: vscode.ViewColumn.Two,
    selection: right,
    preview: false,
  });
  leftEditor.revealRange(left, vscode.TextEditorRevealType.InCenter);
  rightEditor.revealRange(right, vscode.TextEditorRevealType.InCenter);
  leftEditor.setDecorations(decoration(), [left]);
  rightEditor.setDecorations(decoration(), [right]);
}

/** The Doublet diagnostic at the cursor (or the first in the document), for "Compare with Match". */
export function diagnosticAt(editor: vscode.TextEditor): vscode.Diagnostic | undefined {
  const ours = vscode.languages
    .getDiagnostics(editor.document.uri)
    .filter((d) => d.source === 'doublet' && d.relatedInformation && d.relatedInformation.length);
  const cursor = editor.selection.active;
  return ours.find((d) => d.range.contains(cursor)) ?? ours[0];
}
