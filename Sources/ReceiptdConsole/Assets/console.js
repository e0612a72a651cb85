// The console's only script, served from the binary: live refresh and charts. Every page works without it.
"use strict";
