# Herald's container image: the service on the Node release pinned in .node-version, Debian's ffmpeg for video
# conversion and the PostgreSQL client for backups, run as the unprivileged `node` user with its data in /data.
#
#   docker build -t herald .
#   docker run -p 3000:3000 -v herald-data:/data herald                     # API, worker and dashboard
#   docker run -v herald-data:/data herald node bin/herald.js worker        # a worker only
#   docker run -p 3000:3000 -v herald-data:/data herald node bin/herald.js api
#
# docs/deployment.md says which of these steps the tests run without a Docker engine, and which they do not.

FROM node:24.22.3-bookworm-slim AS build
WORKDIR /app
# A compiler, for a native module whose prebuilt binary is not there for this platform.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc .node-version ./
# Dependencies first, without their scripts (the `prepare` build needs the sources, not yet here); then the
# native ones are built, so a change to the sources does not install everything again.
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild better-sqlite3 sharp esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:24.22.3-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg postgresql-client \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  HERALD_DATA_DIR=/data \
  HOST=0.0.0.0 \
  PORT=3000
WORKDIR /app
COPY --from=build /app/package.json /app/.node-version ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Ready: the process serves HTTP and its database answers (every role serves /readyz on PORT).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# What `npm start` runs (package.json's start script), without npm in between: npm does not pass SIGTERM on to
# the service (it exits at once and the service is killed with the container, its sends cut off), while
# Herald itself stops claiming, lets in-flight sends and deliveries finish, and exits 0.
CMD ["node", "bin/start.js"]
