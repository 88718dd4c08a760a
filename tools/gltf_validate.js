// Validate glTF files with the Khronos glTF-Validator; print one JSON report per file.
// usage: node tools/gltf_validate.js FILE...   (NODE_PATH must reach gltf-validator)
"use strict";
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

async function main(files) {
  const reports = [];
  for (const file of files) {
    const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 100,
      externalResourceFunction: (uri) =>
        new Promise((resolve, reject) => {
          fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, data) =>
            err ? reject(err.toString()) : resolve(new Uint8Array(data)));
        }),
    });
    reports.push(report);
  }
  process.stdout.write(JSON.stringify(reports));
}

main(process.argv.slice(2)).catch((e) => {
  process.stderr.write(String(e) + "\n");
  process.exit(1);
});
