# toolgate as a container: `toolgate serve` over HTTP, as a non-root user, with nothing but Node and the
# bundled CLI. Build: docker build -t toolgate . (or podman build). See docs/deployment.md.
#
# NODE_IMAGE is a build argument only so that a machine that cannot pull images can point it at a local
# image with the same layout (Debian bookworm, Node 20 in /usr/local/bin, user `node` 1000:1000); the
# image test does that (test/image/image.test.ts).
ARG NODE_IMAGE=node:20-slim

# --- build: install every dependency, bundle the CLI with esbuild --------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Dependencies' install scripts are not needed (esbuild's binary ships in an optional dependency).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
COPY examples ./examples
# Only what runs goes to /out: the launcher, the CLI bundle and its chunks (no source maps, no benchmarks),
# and `toolgate` on PATH for `kubectl exec … toolgate audit verify` and the like.
RUN npm run build \
 && mkdir -p /out/opt/toolgate/dist/chunks /out/opt/toolgate/bin /out/usr/local/bin \
 && cp package.json /out/opt/toolgate/ \
 && cp bin/toolgate.js /out/opt/toolgate/bin/ \
 && cp dist/cli.js /out/opt/toolgate/dist/ \
 && cp dist/chunks/*.js /out/opt/toolgate/dist/chunks/ \
 && chmod -R a+rX,go-w /out/opt/toolgate \
 && ln -s /opt/toolgate/bin/toolgate.js /out/usr/local/bin/toolgate

# --- runtime: Node, the CLI bundle, nothing else -------------------------------------------------------
FROM ${NODE_IMAGE}
# The bundle (dist/cli.js and its chunks) carries every dependency, so no node_modules is copied; package.json
# is there for "type": "module". Owned by root and read-only to the user that runs it. No RUN in this stage:
# nothing is installed or changed in the base image.
COPY --from=build /out/ /
ENV NODE_ENV=production \
    TOOLGATE_CONFIG_DIR=/etc/toolgate/config
# The configuration directory and the tokens are mounted here (a ConfigMap and a Secret in deploy/).
WORKDIR /home/node
USER 1000:1000
EXPOSE 8931 9464
# Node has no curl here; a node one-liner asks /healthz. TOOLGATE_HEALTH_URL follows a changed --http port.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.TOOLGATE_HEALTH_URL||'http://127.0.0.1:8931/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# exec form: node is PID 1 and gets SIGTERM itself, which starts the drain (--drain-timeout).
ENTRYPOINT ["node", "/opt/toolgate/bin/toolgate.js"]
CMD ["serve", "--http", "8931", "--host", "0.0.0.0", "--config-dir", "/etc/toolgate/config", \
     "--tokens", "/etc/toolgate/secrets/tokens.yaml", \
     "--allowed-host", "localhost", "--allowed-host", "127.0.0.1", \
     "--metrics-port", "9464", "--metrics-host", "0.0.0.0"]
