#!/bin/sh
echo set up
