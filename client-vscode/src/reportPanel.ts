// The workspace report in a webview.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { Report, renderReport } from './logic/report';

let panel: vscode.WebviewPanel | undefined;

export function showReport(report: Report): void {
  if (!panel) {
    panel = vscode.window.createWebviewPanel('doublet.report', 'Doublet: Workspace Report', vscode.ViewColumn.Active, {
      enableScripts: true,
    });
    panel.onDidDispose(() => {
      panel = undefined;
    });
    panel.webview.onDidReceiveMessage(async (message: { open?: string; line?: number }) => {
      if (message.open) {
        const line = message.line ?? 0;
        await vscode.window.showTextDocument(vscode.Uri.parse(message.open), {
          selection: new vscode.Range(line, 0, line, 0),
          viewColumn: vscode.ViewColumn.Beside,
        });
      }
    });
  }
  panel.webview.html = renderReport(report, crypto.randomBytes(16).toString('hex'));
  panel.reveal();
}
