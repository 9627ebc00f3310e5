// A stand-in for the `electron` module, enough to start the shell's main bundle in plain Node
// and record what it asks of Electron: windows and their options, IPC handlers, session
// handlers, menus. Tests read `recorded`.
const { EventEmitter } = require("node:events");

// Electron defines this in its main process; the updater reads it.
process.resourcesPath = process.resourcesPath ?? require("node:path").join(__dirname, "resources");

const recorded = {
  windows: [],
  ipcHandlers: new Map(),
  permissionRequestHandler: undefined,
  permissionCheckHandler: undefined,
  menu: undefined,
  webContentsCreated: [],
  sent: [],
  errors: [],
  focused: 0,
  messageBoxes: [],
};

class WebContents extends EventEmitter {
  constructor() {
    super();
    this.windowOpenHandler = undefined;
  }
  send(channel, ...args) {
    recorded.sent.push([channel, ...args]);
  }
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.options = options;
    this.webContents = new WebContents();
    this.loaded = undefined;
    recorded.windows.push(this);
    app.emit("web-contents-created", {}, this.webContents);
  }
  static getAllWindows() {
    return recorded.windows;
  }
  loadFile(file) {
    this.loaded = file;
    return Promise.resolve();
  }
  isDestroyed() {
    return false;
  }
  isMinimized() {
    return false;
  }
  isVisible() {
    return true;
  }
  isFocused() {
    return true;
  }
  isMaximized() {
    return false;
  }
  getNormalBounds() {
    return { x: 0, y: 0, width: 1280, height: 860 };
  }
  maximize() {}
  show() {}
  focus() {
    recorded.focused++;
  }
  restore() {}
}

const app = Object.assign(new EventEmitter(), {
  name: "Lathe",
  isPackaged: false,
  dataDir: undefined,
  requestSingleInstanceLock: () => true,
  whenReady: () => Promise.resolve(),
  getPath: () => app.dataDir,
  getVersion: () => "0.0.0-test",
  quitCalls: 0,
  quit: () => {
    app.quitCalls++;
  },
  exit: (code) => recorded.errors.push(`exit ${code}`),
});

module.exports = {
  recorded,
  app,
  BrowserWindow,
  ipcMain: { handle: (channel, handler) => recorded.ipcHandlers.set(channel, handler) },
  dialog: {
    showErrorBox: (title, message) => recorded.errors.push(`${title}: ${message}`),
    showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    // Tests may replace `messageBoxResponse` to choose a button.
    showMessageBox: async (options) => {
      recorded.messageBoxes.push(options);
      return { response: module.exports.messageBoxResponse ?? 1 };
    },
  },
  session: {
    defaultSession: {
      setPermissionRequestHandler: (h) => (recorded.permissionRequestHandler = h),
      setPermissionCheckHandler: (h) => (recorded.permissionCheckHandler = h),
    },
  },
  screen: { getDisplayMatching: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) },
  shell: { openExternal: async () => {}, openPath: async () => "" },
  Notification: Object.assign(
    class extends EventEmitter {
      show() {}
    },
    { isSupported: () => false },
  ),
  Menu: { buildFromTemplate: (template) => template, setApplicationMenu: (menu) => (recorded.menu = menu) },
  safeStorage: {
    isEncryptionAvailable: () => false,
    getSelectedStorageBackend: () => "basic_text",
    encryptString: () => Buffer.alloc(0),
    decryptString: () => "",
  },
};
