"""The package's exceptions."""


class PlanError(ValueError):
    """A plan the core refuses, exactly as the core says it: .code (vp_status_name: "json", "schema", "field", "range", "unsupported", ...),
    .path (the JSON path of the bad field, e.g. "workload.batch"; "" for the whole text) and .message
    (the core's sentence, which names the field too)."""

    def __init__(self, code, path, message):
        super().__init__(message)
        self.code = code
        self.path = path
        self.message = message

    def __repr__(self):
        return "PlanError(code=%r, path=%r, message=%r)" % (self.code, self.path, self.message)


class WillNotFit(RuntimeError):
    """preflight: the job does not fit the device's free memory. The message holds the estimate's summary
    and its top suggestions; .estimate is the whole vramplan/estimate@1 document."""

    def __init__(self, message, estimate):
        super().__init__(message)
        self.estimate = estimate
