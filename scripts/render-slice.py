"""Renders a slice of a Strata output to PNG with ParaView, no display needed.

    xvfb-run -a pvbatch scripts/render-slice.py OUTPUT.xmf PNG [ARRAY] [AXIS] [STEP]

OUTPUT.xmf: a step's file or the run's series (output/APP.xmf); ARRAY: the
array to colour by (default: the file's first); AXIS: x, y or z, the slice's
normal through the domain's centre (default z); STEP: the series' step to
show, counted from 0, -1 for the last (default). A vector array is coloured
by its magnitude. On Debian, pvbatch needs PYTHONPATH=/usr/lib/python3/dist-packages
where another python3 comes first on PATH.
"""
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetDisplayProperties, ResetCamera,
                             SaveScreenshot, Show, Slice, UpdatePipeline, XDMFReader)


def main():
    if not 3 <= len(sys.argv) <= 6:
        sys.exit(__doc__)
    output, png = sys.argv[1], sys.argv[2]
    axis = sys.argv[4] if len(sys.argv) > 4 else "z"
    if axis not in ("x", "y", "z"):
        sys.exit("render-slice: AXIS is x, y or z, not '%s'" % axis)
    reader = XDMFReader(FileNames=[output])
    times = list(reader.TimestepValues) or [0.0]
    time = times[int(sys.argv[5]) if len(sys.argv) > 5 else -1]
    UpdatePipeline(time=time, proxy=reader)
    arrays = list(reader.CellData.keys()) + list(reader.PointData.keys())
    array = sys.argv[3] if len(sys.argv) > 3 else arrays[0]
    if array not in arrays:
        sys.exit("render-slice: %s has no array '%s' (it has %s)" % (output, array, ", ".join(arrays)))

    bounds = reader.GetDataInformation().GetBounds()
    normal = {"x": [1, 0, 0], "y": [0, 1, 0], "z": [0, 0, 1]}[axis]
    cut = Slice(Input=reader)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = [(bounds[2 * a] + bounds[2 * a + 1]) / 2 for a in range(3)]
    cut.SliceType.Normal = normal

    view = GetActiveViewOrCreate("RenderView")
    view.ViewSize = [800, 640]
    view.ViewTime = time
    view.OrientationAxesVisibility = 1
    Show(cut, view)
    display = GetDisplayProperties(cut, view)
    centre = "CELLS" if array in reader.CellData.keys() else "POINTS"
    ColorBy(display, (centre, array, "Magnitude"))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, True)
    # Seen from the side that keeps the other two axes right-handed on screen.
    side = -1 if axis == "y" else 1
    view.CameraPosition = [c + side * 3 * (b[1] - b[0]) * n for c, n, b in
                           zip(cut.SliceType.Origin, normal, [bounds[0:2], bounds[2:4], bounds[4:6]])]
    view.CameraFocalPoint = cut.SliceType.Origin
    view.CameraViewUp = [0, 0, 1] if axis != "z" else [0, 1, 0]
    ResetCamera(view)
    SaveScreenshot(png, view, ImageResolution=[800, 640])
    print("render-slice: %s, %s at t = %g on the %s = centre slice -> %s" % (output, array, time, axis, png))


main()
