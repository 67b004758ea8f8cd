// Harness for tests in a real VS Code: code-server 4.100.3 (installed by
// scripts/install-code-server.mjs into the cache folder) with DocChat in a fresh extensions dir,
// a fresh profile and workspace, driven by playwright-core and Debian's Chromium.
//
//   const session = await launchVSCode({ name: this.test!.fullTitle(), settings: { 'docchat.documents.url': url } });
//   try {
//     await session.openView();                      // the DocChat activity-bar container
//     await session.runCommand('DocChat: Create Vector Store…');
//     await session.answerQuickInput('handbook');
//     await session.screenshot('store created');     // test-results/<name>/01-store-created.png
//   } finally {
//     await session.close();                         // browser, code-server, temporary folders
//   }
//
// Tokens live in the browser's secret storage, so a test sets them the way a user does: the
// welcome view's button or the "Set … Token" command, then answerQuickInput(token).
export * from './vscode';
export * from './codeServer';
export * from './extensionInstall';
export * from './logs';
export * from './paths';
export * from './workbench';
export * from './backend';
export * from './failures';
export * from './poll';
export * from './manifest';
export * from './localBackends';
