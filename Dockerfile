# syntax=docker/dockerfile:1
# Multi-stage: build TypeScript with dev dependencies, run built JS with production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
# MALLOC_MMAP_THRESHOLD_: glibc serves allocations of 1 MiB and more (ingestion's large statements and bodies) from
# mmap and returns them on free; by default the threshold grows after such a free and the memory stays resident
# (docs/operations.md, Memory).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY config ./config
COPY public ./public
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# /readyz: the database answers and every migration is applied; in a PROCESS_ROLE=worker container, also that its
# claim loop and lease heartbeat are making progress (a worker serves /healthz, /readyz and /metrics alone).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# PROCESS_ROLE (api | worker | all) chooses what this container runs; see docker-compose.yml.
CMD ["node", "dist/main.js"]
