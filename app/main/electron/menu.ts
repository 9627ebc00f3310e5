// The application menu: the platform's standard menus and shortcuts, plus Lathe's own commands,
// which the renderer carries out (they arrive as `app.command` events).
import { app, Menu, shell, type MenuItemConstructorOptions } from "electron";

type Command = "open-project" | "new-session" | "show-history" | "show-settings";

export function installMenu(run: (command: Command) => void): void {
  const mac = process.platform === "darwin";
  const item = (label: string, accelerator: string, command: Command): MenuItemConstructorOptions => ({ label, accelerator, click: () => run(command) });
  const template: MenuItemConstructorOptions[] = [
    ...(mac
      ? [
          {
            label: app.name,
            submenu: [
              { role: "about" },
              { type: "separator" },
              { ...item("Settings…", "Cmd+,", "show-settings") },
              { type: "separator" },
              { role: "services" },
              { type: "separator" },
              { role: "hide" },
              { role: "hideOthers" },
              { role: "unhide" },
              { type: "separator" },
              { role: "quit" },
            ],
          } as MenuItemConstructorOptions,
        ]
      : []),
    {
      label: "&File",
      submenu: [
        item("Open Project…", "CmdOrCtrl+O", "open-project"),
        item("New Session", "CmdOrCtrl+N", "new-session"),
        item("History", "CmdOrCtrl+Shift+H", "show-history"),
        ...(mac
          ? []
          : [
              { type: "separator" } as MenuItemConstructorOptions,
              item("Settings", "Ctrl+,", "show-settings"),
              { type: "separator" } as MenuItemConstructorOptions,
              { role: "quit" } as MenuItemConstructorOptions,
            ]),
      ],
    },
    { role: "editMenu" },
    {
      label: "&View",
      submenu: [
        { role: "reload" },
        ...(app.isPackaged ? [] : [{ role: "toggleDevTools" } as MenuItemConstructorOptions]),
        { type: "separator" },
        { role: "resetZoom" },
        { role: "zoomIn" },
        { role: "zoomOut" },
        { type: "separator" },
        { role: "togglefullscreen" },
      ],
    },
    { role: "windowMenu" },
    { role: "help", submenu: [{ label: "Show Data Folder", click: () => void shell.openPath(app.getPath("userData")) }] },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
