/* The suppression meta-rules: reported by the suppression stage of the
 * pipeline (findings/suppress.c) after the other rules ran, so they have no
 * check of their own. */
#include "rules/rule.h"

const rule_def rule_invalid_suppression = {
    .id = "invalid-suppression",
    .default_severity = SEV_WARNING,
    .summary = "a gpulint: allow(...) without a `-- reason`, malformed, or naming an unknown rule",
    .explain =
        "What it reports: a suppression comment that cannot be honoured: no\n"
        "`-- reason` after the rule list, a malformed `allow(...)`, or a rule id\n"
        "that does not exist (a typo, or a pattern the config no longer defines).\n"
        "Such a suppression suppresses nothing.\n"
        "\n"
        "Why: a suppression is a decision somebody made about one piece of code;\n"
        "the reason is what lets the next reader check that it still holds.\n"
        "\n"
        "Bad:\n"
        "    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); // gpulint: allow(mapped-pinned-only)\n"
        "Good:\n"
        "    // gpulint: allow(mapped-pinned-only) -- one-off weight load at startup\n"
        "    cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\n"
        "\n"
        "Suppress: it cannot be suppressed inline; fix the comment, or disable the\n"
        "rule in .gpulint.yaml (rules: invalid-suppression: enabled: false).\n",
    .check = NULL,
};

const rule_def rule_unused_suppression = {
    .id = "unused-suppression",
    .default_severity = SEV_WARNING,
    .summary = "a suppression that suppressed nothing (the finding it was for is gone)",
    .explain =
        "What it reports: a valid `gpulint: allow(rule) -- reason` on a line (or the\n"
        "line above) where the rule found nothing, or an `allow-file(rule)` in a\n"
        "file where it found nothing.\n"
        "\n"
        "Why: stale suppressions hide the next real finding at that place.\n"
        "\n"
        "Bad:\n"
        "    // gpulint: allow(no-via-pinned) -- legacy path   (the call was removed)\n"
        "    launch_forward(stream);\n"
        "Good: delete the comment.\n"
        "\n"
        "Suppress: it cannot be suppressed inline; disable it in .gpulint.yaml\n"
        "(rules: unused-suppression: enabled: false) or limit it with include/exclude.\n",
    .check = NULL,
};
