// Doublet for VS Code: a thin client of the `doublet serve` language server.
// It finds Python, starts the server, and implements what only the editor can
// do: a view of similar passages, side-by-side comparison, the report panel
// and the status bar item.

import * as vscode from 'vscode';
import { compareSideBySide, diagnosticAt, openPassage } from './compare';
import { CheckResult, afterCheck, afterFindSimilar } from './logic/answers';
import { WorkspaceReport } from './logic/report';
import { JsonRange, SimilarPassage } from './logic/similar';
import { ServerStatus, statusText, statusTooltip, waitingMessage } from './logic/status';
import { pythonExtensionInterpreter } from './python';
import { closeReport, showReport } from './reportPanel';
import { ServerManager } from './server';
import { SimilarView } from './similarView';

let manager: ServerManager | undefined;

function jsonRange(range: vscode.Range): JsonRange {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Doublet');
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = 'doublet.showWorkspaceReport';
  let lastStatus: ServerStatus | undefined;
  const showStatus = (value: ServerStatus | undefined) => {
    lastStatus = value;
    status.text = statusText(value);
    status.tooltip = statusTooltip(value);
    status.show();
  };
  showStatus(undefined);

  const view = new SimilarView();
  manager = new ServerManager(context, output, showStatus);
  context.subscriptions.push(output, status, manager, vscode.window.registerTreeDataProvider('doublet.similar', view));
  context.subscriptions.push({ dispose: closeReport });

  const server = (): ServerManager => manager as ServerManager;
  const register = (name: string, handler: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(name, handler));

  register('doublet.findSimilarPassages', async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Doublet: open a document to find passages similar to it.');
      return;
    }
    const args: unknown[] = [editor.document.uri.toString()];
    if (!editor.selection.isEmpty) {
      args.push(jsonRange(editor.selection));
    }
    // the server answers once its index is built: until then, say why it takes a while
    const passages = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Doublet' },
      async (progress) => {
        progress.report({ message: waitingMessage(lastStatus) });
        return (await vscode.commands.executeCommand('doublet.findSimilar', ...args)) as SimilarPassage[] | undefined;
      },
    );
    view.show(editor.document.uri.toString(), passages ?? []);
    await vscode.commands.executeCommand('doublet.similar.focus');
    const said = afterFindSimilar(view.count, vscode.workspace.getWorkspaceFolder(editor.document.uri) !== undefined);
    if (said) {
      void vscode.window.showInformationMessage(said);
    }
  });

  register('doublet.checkCurrentDocument', async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('Doublet: open a document to check it.');
      return;
    }
    const result = (await vscode.commands.executeCommand('doublet.checkDocument', editor.document.uri.toString())) as
      | CheckResult
      | undefined;
    const said = afterCheck(result);
    if (said) {
      void vscode.window.showInformationMessage(said);
    }
  });

  register('doublet.openPassage', (uri: string, range: JsonRange) => openPassage(uri, range));

  // The server's "compare side by side" quick fix calls this with both locations.
  register('doublet.compareSideBySide', (uri: string, range: JsonRange, otherUri: string, otherRange: JsonRange) =>
    compareSideBySide(uri, range, otherUri, otherRange),
  );

  register('doublet.compareWithMatch', async () => {
    const editor = vscode.window.activeTextEditor;
    const diagnostic = editor && diagnosticAt(editor);
    if (!editor || !diagnostic || !diagnostic.relatedInformation) {
      void vscode.window.showInformationMessage('Doublet: no matched passage in this document.');
      return;
    }
    const other = diagnostic.relatedInformation[0].location;
    await compareSideBySide(editor.document.uri.toString(), jsonRange(diagnostic.range), other.uri.toString(), jsonRange(other.range));
  });

  register('doublet.showWorkspaceReport', async () => {
    // the folder of the document in front (several folders: one report each), else the first
    const active = vscode.window.activeTextEditor?.document.uri;
    const folder = active && vscode.workspace.getWorkspaceFolder(active);
    const args = folder ? [folder.uri.toString()] : [];
    const report = (await vscode.commands.executeCommand('doublet.workspaceReport', ...args)) as WorkspaceReport | undefined;
    if (report?.html) {
      showReport(report.html);
    } else if (report) {
      void vscode.window.showInformationMessage('Doublet: open a folder to see its workspace report.');
    }
  });

  register('doublet.reindexWorkspace', async () => {
    const result = (await vscode.commands.executeCommand('doublet.reindex')) as ServerStatus | undefined;
    showStatus(result);
  });

  register('doublet.restartServer', () => server().restart());

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('doublet.python.path')) {
        await server().restart();
      }
    }),
  );
  const python = vscode.extensions.getExtension('ms-python.python');
  if (python) {
    try {
      const api = python.isActive ? python.exports : await python.activate();
      const changed = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (changed) {
        context.subscriptions.push(
          changed(async () => {
            output.appendLine(`Python interpreter changed to ${await pythonExtensionInterpreter()}`);
            await server().restart();
          }),
        );
      }
    } catch {
      // the Python extension failed to activate: the other ways of finding Python remain
    }
  }

  await server().start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
