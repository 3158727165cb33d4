// What went wrong, in the reader's language: a known error code has its own message,
// anything else is described by its kind (offline, refused token, too large, server
// trouble). The server's own text (English, sometimes a stack of host names) is never
// shown.
const BY_STATUS = [
  [0, "error.offline"],
  [401, "error.unauthorized"],
  [403, "error.forbidden"],
  [404, "error.gone"],
  [413, "error.too_large"],
  [429, "error.busy"],
];

export function describeError(err, t) {
  const params = { ...(err?.placeholders ?? {}) };
  if (err?.code && t(`error.${err.code}`, params, "") !== "") {
    return t(`error.${err.code}`, params);
  }
  const status = err?.status ?? 0;
  const known = BY_STATUS.find(([code]) => code === status);
  if (known) return t(known[1], params);
  if (status >= 500) return t("error.server", params);
  return t(status >= 400 ? "error.refused" : "error.unknown", params);
}
