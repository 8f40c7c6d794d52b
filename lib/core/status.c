/* Status names, the version twins and the request helpers. */
#include "internal.h"
#include "xlat/version.h"

const char *xlat_strerror(int rc)
{
    switch (rc) {
    case XLAT_OK: return "XLAT_OK: success";
    case XLAT_ERR_INVAL: return "XLAT_ERR_INVAL: invalid argument or configuration";
    case XLAT_ERR_NOMEM: return "XLAT_ERR_NOMEM: out of memory";
    case XLAT_ERR_AGAIN: return "XLAT_ERR_AGAIN: busy, nothing taken; try again later";
    case XLAT_ERR_NOT_FOUND: return "XLAT_ERR_NOT_FOUND: no such entry";
    case XLAT_ERR_FULL: return "XLAT_ERR_FULL: no room left";
    case XLAT_ERR_EXIST: return "XLAT_ERR_EXIST: already exists";
    case XLAT_ERR_FAULT: return "XLAT_ERR_FAULT: translation fault";
    case XLAT_ERR_PERM: return "XLAT_ERR_PERM: permission fault";
    case XLAT_ERR_STATE: return "XLAT_ERR_STATE: not allowed in the current state";
    case XLAT_ERR_UNSUPPORTED: return "XLAT_ERR_UNSUPPORTED: not supported";
    case XLAT_ERR_BUSY: return "XLAT_ERR_BUSY: another unit still holds it";
    default: return "unknown libxlat status code";
    }
}

uint32_t xlat_version_number(void) { return XLAT_VERSION_NUMBER; }

const char *xlat_version_string(void) { return XLAT_VERSION_STRING; }

uint8_t xlat_access_perm(xlat_access access) { return xlat__access_perm(access); }

int xlat__req_refuse(xlat_ctx *ctx, const xlat_req *req, const char *who)
{
    return xlat__fail(ctx, XLAT_ERR_INVAL, "%s: access kind %d is not an xlat_access", who,
                      (int)req->access);
}

