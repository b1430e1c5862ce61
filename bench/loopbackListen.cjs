/* global require */
// Preloaded into supergateway by bench/serve.ts (`node --require`): supergateway has no host flag and binds
// every interface, so this forces every listening socket of that process onto 127.0.0.1 for the benchmark.
"use strict";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const callback = args.find((a) => typeof a === "function");
    return callback === undefined
      ? listen.call(this, Number(first), "127.0.0.1")
      : listen.call(this, Number(first), "127.0.0.1", callback);
  }
  if (first !== null && typeof first === "object" && !Array.isArray(first) && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
