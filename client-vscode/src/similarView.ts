// The "Similar Passages" view: results of Find Similar Passages, by other file.

import * as vscode from 'vscode';
import { FileGroup, JsonRange, SimilarPassage, fileLabel, groupByFile, passageLabel } from './logic/similar';

type Node = FileGroup | SimilarPassage;

export function toRange(range: JsonRange): vscode.Range {
  return new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
}

export class SimilarView implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private groups: FileGroup[] = [];
  source: string | undefined;

  show(source: string, passages: SimilarPassage[]): void {
    this.source = source;
    this.groups = groupByFile(passages);
    this.changed.fire(undefined);
  }

  get count(): number {
    return this.groups.reduce((total, group) => total + group.passages.length, 0);
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      return this.groups;
    }
    return 'passages' in node ? node.passages : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if ('passages' in node) {
      const item = new vscode.TreeItem(fileLabel(node), vscode.TreeItemCollapsibleState.Expanded);
      item.resourceUri = vscode.Uri.parse(node.uri);
      item.iconPath = vscode.ThemeIcon.File;
      return item;
    }
    const item = new vscode.TreeItem(passageLabel(node), vscode.TreeItemCollapsibleState.None);
    item.description = node.otherExcerpt;
    item.tooltip = new vscode.MarkdownString(`**This document:** ${node.excerpt}\n\n**${node.other.path}:** ${node.otherExcerpt}`);
    item.command = {
      command: 'doublet.openPassage',
      title: 'Open the matching passage',
      arguments: [node.other.uri, node.other.range],
    };
    item.contextValue = 'passage';
    return item;
  }
}
