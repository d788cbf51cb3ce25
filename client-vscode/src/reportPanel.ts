// The workspace report in a webview: the page of `doublet report`, sent by the
// server (doublet.workspaceReport). One panel, reused: running the command again
// shows the report of the workspace as it is now.

import * as vscode from 'vscode';
import { forWebview } from './logic/report';

let panel: vscode.WebviewPanel | undefined;

export function showReport(page: string): void {
  if (!panel) {
    panel = vscode.window.createWebviewPanel('doublet.report', 'Doublet: Workspace Report', vscode.ViewColumn.Active, {
      enableScripts: true, // the page draws every view with its inline script
      enableFindWidget: true,
      retainContextWhenHidden: true, // keep the view, filters and scroll position across tab switches
    });
    panel.onDidDispose(() => {
      panel = undefined;
    });
  }
  panel.webview.html = forWebview(page);
  panel.reveal();
}

/** Close the report (the extension is deactivated). */
export function closeReport(): void {
  panel?.dispose();
}
